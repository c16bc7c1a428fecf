import JukeboxCore

// The family's rules: the `[rules]` texts (profiles, quiet hours, budgets) and the persisted
// usage line as the daemon reads them, then `ListeningRules` fed events. The input is text
// lines up to a NUL byte (each tried as every kind of rule, `card NAME` an allowed card),
// then 4 bytes an event: the clock (known, not known, a day or a DST change later), the
// usage restored, the player (state, the track's time left, speed, card) after some time.
// The machine must never count more time than passed, fade outside 0...1, end the budget
// before it is used up, refuse an allowed card, or persist a line it cannot read back.
@_cdecl("LLVMFuzzerTestOneInput")
public func fuzz(_ data: UnsafeRawPointer?, _ size: Int) -> CInt {
    let bytes = fuzzBytes(data, size)
    let split = bytes.firstIndex(of: 0) ?? bytes.count
    var config = ListeningRulesConfig()
    var restored: ListeningUsage?
    for line in fuzzLines(Array(bytes[..<split])).prefix(64) {
        if case .success(let profile) = ListeningProfile.parse(line), config.profiles.count < 16 {
            require((0..<1440).contains(profile.fromMinute), "profile from minute \(profile.fromMinute)")
            config.profiles.append(profile)
        }
        if case .success(let quiet) = QuietHours.parse(line), config.quietHours.count < 16 {
            config.quietHours.append(quiet)
        }
        if case .success(let budget) = ListeningBudget.parse(line), config.budgets.count < 16 {
            require(budget.milliseconds >= 0, "a budget of \(budget.milliseconds) ms")
            config.budgets.append(budget)
        }
        if let usage = ListeningUsage.parse(line) {
            require(ListeningUsage.parse(usage.line) == usage, "'\(usage.line)' reads back differently")
            restored = usage
        }
        if line.hasPrefix("card "), config.allowedCards.count < 8 {
            config.allowedCards.append(String(line.dropFirst(5)))
        }
    }
    var rules = ListeningRules(config: config)
    var now = Instant(nanoseconds: 0)
    // 2026-03-29 00:00 UTC (the night Europe's clocks go forward), at UTC+1.
    var wall = LocalWallTime(utcSeconds: 1_774_742_400, utcOffsetSeconds: 3600)
    var lastLook: Instant?
    var lastPlaying = false
    var day: Int64?
    var used: Int64 = 0
    let cards: [String?] = [nil, "A1", config.allowedCards.first, "unknown"]
    var index = split + 1
    var events = 0
    while index + 3 < bytes.count, events < 2048 {
        let (kind, a, b, c) = (bytes[index], bytes[index + 1], bytes[index + 2], bytes[index + 3])
        index += 4
        events += 1
        var actions: [ListeningRules.Action] = []
        switch kind % 8 {
        case 0:
            // Minutes to days later; sometimes the zone's offset changes (DST).
            wall.utcSeconds += Int64(a) * Int64(b) * 60
            if c & 1 != 0 { wall.utcOffsetSeconds = c & 2 != 0 ? 7200 : 3600 }
            actions = rules.handle(.clock(c & 4 != 0 ? nil : wall), now: now)
        case 1:
            guard events == 1, let restored else { continue }
            actions = rules.handle(.restored(restored), now: now)
            used = restored.usedMs
            day = restored.day
        default:
            let step = Int64(a) * Int64(a) * 10 + Int64(b & 0x0F)
            now = now.adding(milliseconds: step)
            let state = [PlayState.playing, .paused, .stopped, .playing][Int(b >> 4) % 4]
            let left: Int64? = c & 0x80 != 0 ? nil : Int64(c) * 1000
            let speed = PlaybackSpeed(clamping: 50 + Int(c & 0x7F) * 2)
            let card = cards[Int(kind >> 3) % cards.count]
            let before = rules.usage.usedMs
            actions = rules.handle(.player(state: state, trackLeftMs: left, speed: speed, card: card), now: now)
            if let lastLook, rules.usage.day == day {
                let counted = rules.usage.usedMs - before
                require(counted >= 0, "\(counted) ms counted back")
                require(
                    counted <= (lastPlaying ? now.milliseconds(since: lastLook) : 0),
                    "\(counted) ms counted over \(now.milliseconds(since: lastLook)) ms (playing: \(lastPlaying))")
            }
            lastLook = now
            lastPlaying = state == .playing && !config.allows(card: card)
            if let deadline = rules.nextDeadline {
                require(deadline >= now || !lastPlaying, "the next look \(deadline) before now \(now)")
            }
        }
        for action in actions {
            switch action {
            case .setFade(let gain):
                require(gain >= 0 && gain <= 1, "a fade to \(gain)")
            case .budgetEnded:
                require(rules.usedUp, "the budget ended before it was used up")
                require(rules.budgetMs.map { rules.usage.usedMs >= $0 } ?? false, "ended with time left")
            case .persist(let usage):
                require(ListeningUsage.parse(usage.line) == usage, "'\(usage.line)' reads back differently")
                require(usage.usedMs >= 0, "\(usage.usedMs) ms used")
            case .warn(let left):
                require(left > 0, "a warning with \(left) ms left")
            case .applyProfile:
                break
            }
        }
        if rules.usage.day != day {
            day = rules.usage.day
            used = rules.usage.usedMs
        }
        require(rules.usage.usedMs >= used || rules.usage.day != day, "the day's count went back")
        used = rules.usage.usedMs
        for card in cards where config.allows(card: card) {
            require(rules.refusal(card: card) == nil, "the allowed card \(card ?? "-") refused")
        }
        if let left = rules.budgetLeftMs, let budget = rules.budgetMs {
            require(left >= 0 && left <= budget, "\(left) ms left of \(budget)")
        }
        require(!rules.statusFields.isEmpty, "no status")
    }
    return 0
}
