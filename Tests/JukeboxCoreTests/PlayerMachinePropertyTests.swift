import PropertyBased
import Testing

@testable import JukeboxCore

/// One command or pipeline event for the player, from four generated numbers.
enum PlayerStep: Sendable, Equatable, CustomStringConvertible {
    case command(Command)
    /// The pipeline reports the start of the current request, the follow-up, or a stale one.
    case started(Which)
    case finished(Which)
    case failed(Which)
    case endOfStream
    /// The played position, as a share (0...10 tenths) of the playing track.
    case position(tenths: Int)
    /// A rescan that dropped one track (nil: every track is back).
    case libraryChanged(dropping: TrackID?)
    case headphones(Bool)
    /// Saved and restored, as on a restart.
    case restored(ResumeOnStart)

    enum Which: Sendable, Equatable { case current, following, stale }

    /// The tracks: 1 to 6 of known length (4 and 5 long, kept positions), 7 of unknown length.
    static let durations: [TrackID: Int64] = [1: 3000, 2: 180_000, 3: 1, 4: 700_000, 5: 3_600_000, 6: 0]
    static let tracks: [TrackInfo] =
        (1...7).map { TrackInfo(id: $0, path: "\($0).mp3", durationMs: durations[$0]) }

    static let kinds = 30

    init(kind: Int, _ a: Int, _ b: Int, _ c: Int) {
        let which = [Which.current, .following, .stale][c % 3]
        let range = a..<a + b
        let track = TrackID(1 + (a + 1 + b + c) % 7)
        let ms = Int64(c - 3) * 60_000 + Int64(a) * 1000
        switch kind {
        case 0: self = .command(.play(index: b == 0 ? nil : a))
        case 1: self = .command(.pause)
        case 2: self = .command(.resume)
        case 3: self = .command(.toggle)
        case 4: self = .command(.stop)
        case 5: self = .command(.next)
        case 6: self = .command(.previous)
        case 7: self = .command(.seek(b % 2 == 0 ? .absolute(ms: ms) : .relative(ms: ms)))
        case 8: self = .command(.seekEntry(index: a, ms: ms))
        case 9: self = .command(.changeVolume((c - 5) * 20))
        case 10: self = .command(.setMode(PlayMode.allCases[c % PlayMode.allCases.count]))
        case 11: self = .command(.setOptions(QueueStep.allOptions[(a + 1 + b + c) % QueueStep.allOptions.count]))
        case 12: self = .command(.editQueue(.add(Array(repeating: track, count: b), at: c % 2 == 0 ? nil : a)))
        case 13: self = .command(.editQueue(.remove(range)))
        case 14: self = .command(.editQueue(.move(range, to: c)))
        case 15: self = .command(.editQueue(.clear))
        case 16: self = .command(.editQueue(.shuffle(range)))
        case 17: self = .command(.editQueue(.leaveCurrent))
        case 18: self = .command(.editQueue(.swap(a, c)))
        case 19: self = .command(.editQueue(.prioritize(range, priority: UInt8(clamping: c * 30))))
        case 20, 21: self = .started(which)
        case 22: self = .finished(which)
        case 23: self = .failed(which)
        case 24: self = .endOfStream
        case 25, 26: self = .position(tenths: c)
        case 27: self = .libraryChanged(dropping: c < 5 ? track : nil)
        case 28: self = .headphones(c % 2 == 0)
        default: self = .restored([ResumeOnStart.play, .paused, .off][c % 3])
        }
    }

    static let generator = zip(
        Gen.int(in: 0...kinds - 1), Gen.int(in: -1...8), Gen.int(in: 0...4), Gen.int(in: 0...10)
    ).map { PlayerStep(kind: $0, $1, $2, $3) }

    var description: String {
        switch self {
        case .command(let command): command.consoleText
        case .started(let which): "started \(which)"
        case .finished(let which): "finished \(which)"
        case .failed(let which): "failed \(which)"
        case .endOfStream: "end of stream"
        case .position(let tenths): "position \(tenths)/10"
        case .libraryChanged(let dropping): "library without \(dropping.map { "\($0)" } ?? "none")"
        case .headphones(let plugged): "headphones \(plugged ? "in" : "out")"
        case .restored(let onStart): "restored, \(onStart)"
        }
    }

    /// The event for `machine` as it is now.
    func event(for machine: PlayerMachine) -> PlayerEvent {
        func token(_ which: Which) -> UInt64 {
            switch which {
            case .current: machine.currentRequest?.token ?? 0
            case .following: machine.nextRequest?.token ?? 0
            case .stale: max(machine.currentRequest?.token ?? 1, 1) - 1
            }
        }
        switch self {
        case .command(let command): return .command(command)
        case .started(let which): return .started(token: token(which))
        case .finished(let which): return .finished(token: token(which))
        case .failed(let which): return .failed(token: token(which), message: "undecodable")
        case .endOfStream: return .endOfStream
        case .position(let tenths):
            let duration = machine.currentRequest.flatMap { Self.durations[$0.trackID] } ?? 600_000
            return .position(ms: duration * Int64(tenths) / 10)
        case .libraryChanged(let dropping):
            return .libraryChanged(Set(Self.tracks.map(\.id)).subtracting(dropping.map { [$0] } ?? []))
        case .headphones(let plugged): return .headphones(plugged: plugged)
        case .restored(let onStart): return .restored(machine.snapshot, onStart: onStart)
        }
    }
}

/// What must hold of the player after any event: empty when it holds.
func playerInvariantViolations(_ machine: PlayerMachine) -> [String] {
    var problems = queueInvariantViolations(machine.queue)
    let current = machine.queue.currentTrack
    switch machine.state {
    case .playing:
        if machine.currentRequest == nil { problems.append("playing with nothing loaded") }
        if current == nil { problems.append("playing with no current entry") }
        if let request = machine.currentRequest, request.trackID != current {
            problems.append("playing track \(request.trackID), the current entry is \(String(describing: current))")
        }
    case .paused:
        if current == nil { problems.append("paused with no current entry") }
    case .stopped:
        if machine.currentRequest != nil { problems.append("stopped with a request loaded") }
    }
    if machine.nextRequest != nil, machine.currentRequest == nil { problems.append("a follow-up without a current") }
    if let next = machine.nextRequest, let playing = machine.currentRequest, next.token <= playing.token {
        problems.append("follow-up token \(next.token) not after \(playing.token)")
    }
    if machine.positionMs < 0 { problems.append("position \(machine.positionMs)") }
    if let track = current, let duration = PlayerStep.durations[track], machine.positionMs > duration {
        problems.append("position \(machine.positionMs) past the track's \(duration) ms")
    }
    if !machine.volumeRange.contains(machine.volume) {
        problems.append("volume \(machine.volume) outside \(machine.volumeRange)")
    }
    return problems
}

/// The player under any sequence of commands and pipeline events (never traps; the checks
/// after each step).
@Suite struct PlayerMachinePropertyTests {
    static let cases = 1500

    static func check(steps: [PlayerStep], startMode: PlayMode, limit: Int) -> String? {
        var machine = PlayerMachine(
            configuration: .init(maxVolume: 90, startVolume: 40, minVolume: 10, headphoneMaxVolume: 50),
            queue: PlayQueue(entries: [1, 2, 3, 4, 5, 6, 7], mode: startMode, seed: 3, limit: limit))
        _ = machine.handle(.tracksDescribed(PlayerStep.tracks), now: .zero)
        for (number, step) in steps.enumerated() {
            _ = machine.handle(step.event(for: machine), now: .milliseconds(Int64(number) * 100))
            if let problem = playerInvariantViolations(machine).first {
                return "after step \(number) (\(step)): \(problem)"
            }
        }
        return nil
    }

    /// What the property found: a new queue's entries carry its version (the invariant
    /// expected them older; the invariant was wrong, not the queue).
    @Test func counterexample() {
        #expect(Self.check(steps: [.command(.play(index: nil))], startMode: .repeatOne, limit: 1) == nil)
    }

    @Test func anySequenceKeepsThePlayerConsistent() async {
        var ran = 0
        await propertyCheck(
            count: Self.cases,
            input: PlayerStep.generator.array(of: 0...60), Gen<PlayMode>.case, Gen.int(in: 1...10)
        ) { steps, mode, limit in
            ran += 1
            let problem = Self.check(steps: steps, startMode: mode, limit: limit)
            #expect(problem == nil, "\(problem ?? "")")
        }
        #expect(ran >= Self.cases)
    }
}
