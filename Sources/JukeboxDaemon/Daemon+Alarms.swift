import JukeboxCore
import JukeboxStore
import Logging

// The wake-up alarms (`[[alarm]]`, JukeboxCore/Alarms): the wall time fed in each turn (the
// rules' clock: nothing rings until it is known), the alarm's music started, its fade's
// volumes set, the controls pressed while it rings handed to it, and the start or failure of
// its music reported back. Nothing here decides.

extension Daemon {
    /// The setting that keeps `AlarmMemory` across a power cut.
    static let alarmMemorySetting = "alarm_memory"

    /// The alarms with what the last run kept (a snooze, the ringing that was over).
    static func alarmsRestored(_ alarms: [WakeUpAlarm], store: LibraryStore, logger: Logger) -> WakeUpAlarms {
        var machine = WakeUpAlarms(alarms: alarms)
        guard !alarms.isEmpty else { return machine }
        do {
            if let text = try store.setting(alarmMemorySetting) { machine.restore(AlarmMemory(text: text)) }
        } catch {
            logger.error("alarms: cannot read what the last run kept (a snooze is lost): \(error)")
        }
        return machine
    }

    /// Each turn: the player's state while an alarm rings, then the wall time.
    func feedAlarms(now: Instant) {
        guard !config.alarms.isEmpty else { return }
        if alarms.isRinging, !alarmAwaitingStart, machine.state != .playing {
            perform(alarms.handle(.playerStopped, now: now))
        }
        perform(alarms.handle(.look(rulesWallTime), now: now))
    }

    /// A control's action while an alarm rings: what it means to the alarm; nil when none
    /// rings (the action is then the player's as always).
    func alarmControl(for action: ControlAction) -> WakeUpAlarms.AlarmControl? {
        guard alarms.isRinging else { return nil }
        switch action {
        case .command(.next), .command(.previous), .command(.previousSong): return .snooze
        case .command(.changeVolume), .command(.setVolume): return .takeOver
        default: return .stop
        }
    }

    /// A client or the console set the volume (it was `before`): while an alarm fades in that
    /// takes the fade over, as turning the knob does (the fade's next step would undo it).
    func alarmVolumeSet(from before: Int) {
        guard alarms.isRinging, machine.volume != before else { return }
        perform(alarms.handle(.control(.takeOver), now: Instant.now))
    }

    /// `alarms skip|unskip NAME`: what was done (the announcement), or why not.
    func skipAlarm(_ name: String, unskip: Bool) -> Result<String, CommandError> {
        alarms.skipNext(name, unskip: unskip, now: Instant.now).map { actions in
            perform(actions)
            return actions.compactMap { action in
                if case .announce(let text) = action { text } else { nil }
            }.joined(separator: "; ")
        }
    }

    /// The pipeline started a track: the alarm's music, when one waits for it.
    func alarmMusicStarted() {
        guard alarmAwaitingStart else { return }
        alarmAwaitingStart = false
        perform(alarms.handle(.musicStarted, now: Instant.now))
    }

    /// The pipeline could not play a track: the alarm's fallback, when its music was awaited.
    func alarmMusicFailed(_ message: String) {
        guard alarmAwaitingStart else { return }
        alarmAwaitingStart = false
        perform(alarms.handle(.musicFailed(message), now: Instant.now))
    }

    func perform(_ actions: [WakeUpAlarms.Action]) {
        for action in actions {
            switch action {
            case .setVolume(let level):
                perform(machine.handle(.command(.setVolume(level)), now: Instant.now))
            case .start(let alarm, let fallback):
                startAlarmMusic(alarm, fallback: fallback)
            case .stop:
                alarmAwaitingStart = false
                perform(machine.handle(.command(.stop), now: Instant.now))
            case .announce(let text):
                logger.info("alarms: \(text)")
                console?.announce(text)
                display?.announce(text, now: Instant.now)
            case .remember(let memory):
                // A press or an alarm's end: rare, one small durable write.
                do {
                    try store.setSetting(Self.alarmMemorySetting, to: memory.text)
                } catch {
                    logger.error("alarms: cannot keep the alarm's state across a power cut: \(error)")
                }
            }
        }
    }

    /// Starts what `alarm` plays (its fallback: its folder, else what played last, else the
    /// whole library). Quiet hours and a used-up budget do not hold an alarm back.
    private func startAlarmMusic(_ alarm: WakeUpAlarm, fallback: Bool) {
        alarmStarting = true
        defer { alarmStarting = false }
        alarmAwaitingStart = true
        let problem: String?
        if fallback {
            if let folder = alarm.fallbackFolder {
                problem = playAlarmSource(.folder(path: folder))
            } else if let last = history.recent.entries.first {
                problem = playAlarmSource(last.source)
            } else {
                problem = playAlarmSource(.folder(path: ""))
            }
        } else {
            switch alarm.music {
            case .source(let source):
                problem = playAlarmSource(source)
            case .station(let url):
                playStation(url)
                problem = nil
            case .card(let id):
                problem = playCardForAlarm(id)
            }
        }
        if let problem {
            alarmAwaitingStart = false
            perform(alarms.handle(.musicFailed(problem), now: Instant.now))
        }
    }

    /// Plays `source`; why not, when it has nothing to play.
    private func playAlarmSource(_ source: PlaySource) -> String? {
        play(source, trackPath: nil, positionMs: 0) > 0 ? nil : "nothing to play in \(source.title)"
    }

    /// Plays what card `id` plays (its music or station); why not otherwise.
    private func playCardForAlarm(_ id: String) -> String? {
        do {
            guard let card = try store.tagCard(id: id) else { return "card \(id) is not assigned" }
            switch card.content {
            case .source(let source):
                return playAlarmSource(source)
            case .url(let url):
                playStation(url)
                return nil
            case .command:
                return "card \(id) runs a command, it plays no music"
            }
        } catch {
            return "cannot read the card mapping: \(error)"
        }
    }
}
