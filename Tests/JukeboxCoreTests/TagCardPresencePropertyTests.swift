import PropertyBased
import Testing

@testable import JukeboxCore

/// A reader's event, `gapMs` after the one before: reads of three cards, removals, ticks.
struct CardStep: Sendable, Equatable, CustomStringConvertible {
    var event: TagCardPresence.Event
    var gapMs: Int64

    init(kind: Int, card: Int, gapMs: Int) {
        let id = ["04A1", "04B2", "04C3"][card]
        event = kind < 3 ? .read(id) : kind < 5 ? .removed : .tick
        self.gapMs = Int64(gapMs)
    }

    static let generator = zip(Gen.int(in: 0...5), Gen.int(in: 0...2), Gen.int(in: 0...2500))
        .map { CardStep(kind: $0, card: $1, gapMs: $2) }

    var description: String { "+\(gapMs) ms \(event)" }
}

/// Card presence under any sequence of reads, removals and time: a removal counts only
/// after the debounce, a card read again within it was never gone, and play and pause
/// alternate.
@Suite struct TagCardPresencePropertyTests {
    static let cases = 2000

    /// Checks one sequence against a model of the reader; returns the first problem.
    static func check(_ steps: [CardStep], mode: TagCardPresence.Mode, debounceMs: Int64) -> String? {
        var presence = TagCardPresence(mode: mode, removalDebounceMs: debounceMs)
        var now = Instant.zero
        /// The card on the reader (place mode: until its removal is debounced).
        var onReader: String?
        /// When the reader lost it, if it has not read it again since.
        var awaySince: Instant?
        var loaded: String?
        var sounding = false
        for (number, step) in steps.enumerated() {
            now = now.adding(milliseconds: step.gapMs)
            let at = "after step \(number) (\(step))"
            let expired = mode == .place && awaySince.map { now >= $0.adding(milliseconds: debounceMs) } ?? false
            let actions = presence.handle(step.event, now: now)
            let pauses = actions.filter { if case .pause = $0 { true } else { false } }
            let expected =
                expired && onReader == loaded ? onReader.map { [TagCardPresence.Action.pause($0)] } ?? [] : []
            if pauses != expected { return "\(at): \(pauses), expected \(expected)" }
            if !pauses.isEmpty {
                guard sounding else { return "\(at): paused twice" }
                sounding = false
            }
            if expired { (onReader, awaySince) = (nil, nil) }
            let others = actions.filter { if case .pause = $0 { false } else { true } }
            switch (step.event, mode) {
            case (.read(let card), .place):
                let expected: [TagCardPresence.Action] =
                    card == onReader ? [] : [card == loaded ? .resume(card) : .play(card)]
                if others != expected { return "\(at): \(others), expected \(expected)" }
                if card != onReader { (loaded, sounding) = (card, true) }
                (onReader, awaySince) = (card, nil)
            case (.read(let card), .swipe):
                let expected: [TagCardPresence.Action] =
                    card == loaded ? [.swipeAgain(card, presence.swipeAgain)] : [.play(card)]
                if others != expected { return "\(at): \(others), expected \(expected)" }
                loaded = card
            case (.removed, _), (.tick, _):
                if !others.isEmpty { return "\(at): \(others) without a read" }
                if case .removed = step.event, mode == .place, onReader != nil, awaySince == nil { awaySince = now }
            }
            if mode == .place, presence.present != onReader {
                return "\(at): present \(presence.present ?? "none"), on the reader \(onReader ?? "none")"
            }
            let due = awaySince?.adding(milliseconds: debounceMs)
            if mode == .place, presence.nextDeadline != due {
                return
                    "\(at): deadline \(String(describing: presence.nextDeadline)), expected \(String(describing: due))"
            }
        }
        return nil
    }

    @Test(arguments: TagCardPresence.Mode.allCases)
    func anySequenceDebouncesRemovals(mode: TagCardPresence.Mode) async {
        var ran = 0
        await propertyCheck(
            count: Self.cases, input: CardStep.generator.array(of: 0...60), Gen.int64(in: 1...2000)
        ) { steps, debounceMs in
            ran += 1
            let problem = Self.check(steps, mode: mode, debounceMs: debounceMs)
            #expect(problem == nil, "\(problem ?? "")")
        }
        #expect(ran >= Self.cases)
    }
}
