import JukeboxCore

// `say "text"` from any front end and the events speech goes through (`Announcements`):
// the input's text lines up to a NUL byte are the texts (repaired UTF-8, as the daemon's
// line readers give them); then 2 bytes an event: say a text, announce an unknown card,
// the speech made (its length), failed, ended, or time passing. Texts must be spoken one at
// a time in the order they were taken, none longer than the limit, no more waiting than
// `maxWaiting`, and speech that never ends must be given up on at its deadline.
@_cdecl("LLVMFuzzerTestOneInput")
public func fuzz(_ data: UnsafeRawPointer?, _ size: Int) -> CInt {
    let bytes = fuzzBytes(data, size)
    let split = bytes.firstIndex(of: 0) ?? bytes.count
    var texts = fuzzLines(Array(bytes[..<split])).prefix(32).map { $0 }
    texts.append(String(repeating: "\u{301}", count: 5000))  // one Character of 5,000 scalars
    var speech = Announcements(enabled: bytes.first.map { $0 & 1 == 0 } ?? true)
    var expected: [String] = []  // taken, not yet synthesized
    var now = Instant(nanoseconds: 0)
    var index = split + 1
    while index + 1 < bytes.count, index < split + 1 + 4096 {
        let (kind, value) = (bytes[index], bytes[index + 1])
        index += 2
        now = now.adding(milliseconds: Int64(value) * Int64(value))
        var actions: [Announcements.Action] = []
        switch kind % 7 {
        case 0, 1:
            let text = texts[Int(value) % texts.count]
            switch speech.say(text) {
            case .success(let said):
                require(
                    text.unicodeScalars.count <= Announcements.maxScalars, "\(text.unicodeScalars.count) scalars taken")
                require(Announcements.refusal(of: text) == nil, "a refused text taken")
                expected.append(Announcements.speakable(text))
                actions = said
            case .failure:
                break
            }
        case 2:
            let before = speech.waiting.count
            actions = speech.announce(.unknownCard)
            if !actions.isEmpty || speech.waiting.count > before {
                expected.append(Announcements.Event.unknownCard.text)
            }
        case 3: actions = speech.handle(.synthesized(lengthMs: Int64(value) * 100), now: now)
        case 4: actions = speech.handle(.failed("no voice"), now: now)
        case 5: actions = speech.handle(.ended, now: now)
        default:
            let before = deadline(of: speech)
            actions = speech.handle(.tick, now: now)
            if let before, now >= before {
                require(!actions.contains(.speak), "speech given up on and spoken again")
                require(deadline(of: speech) != before, "speech past its deadline kept")
            }
        }
        for action in actions {
            switch action {
            case .synthesize(let text):
                require(!expected.isEmpty && expected.removeFirst() == text, "'\(text)' out of order")
            case .speak:
                require(deadline(of: speech).map { $0 > now } ?? false, "spoken with no deadline ahead")
            }
        }
        require(speech.waiting.count <= Announcements.maxWaiting, "\(speech.waiting.count) waiting")
        require(speech.waiting == expected.suffix(speech.waiting.count), "the waiting line is not the texts taken")
        if isIdle(speech) { require(speech.waiting.isEmpty, "idle with texts waiting") }
    }
    return 0
}

// Out of line: swiftc 6.3.1 -O crashes (CopyPropagation, "outside of lifetime use") when
// `phase` is matched inside `fuzz`.
@inline(never) func deadline(of speech: Announcements) -> Instant? { speech.nextDeadline }
@inline(never) func isIdle(_ speech: Announcements) -> Bool { speech.phase == .idle }
