import Testing

@testable import JukeboxAudio

/// The output device's states and what moves them: every (state, event) pair, the allowed
/// ones with their target, every other one refused.
@Suite struct OutputDeviceStateTests {
    typealias State = OutputDeviceState

    /// The whole table: state, event, the state after it. Pairs not listed cannot happen.
    static let table: [(State, State.Event, State)] = [
        (.closed, .opened, .open),
        (.closed, .openFailed, .reopening),
        (.open, .wrote, .running),
        (.open, .underrun, .xrun),
        (.open, .suspend, .suspended),
        (.open, .prepared, .open),
        (.open, .failed, .gone),
        (.open, .closed, .closed),
        (.running, .wrote, .running),
        (.running, .underrun, .xrun),
        (.running, .suspend, .suspended),
        (.running, .prepared, .open),
        (.running, .failed, .gone),
        (.running, .closed, .closed),
        (.xrun, .prepared, .open),
        (.xrun, .failed, .gone),
        (.suspended, .stillWaking, .suspended),
        (.suspended, .resumed, .running),
        (.suspended, .prepared, .open),
        (.suspended, .failed, .gone),
        (.gone, .closed, .reopening),
        (.reopening, .opened, .open),
        (.reopening, .openFailed, .reopening),
    ]

    @Test(arguments: table.indices) func eachTransitionLeadsWhereTheTableSays(row: Int) {
        let (state, event, target) = Self.table[row]
        #expect(state.after(event) == target)
    }

    @Test func everyOtherPairIsRefused() {
        for state in State.allCases {
            for event in State.Event.allCases where !Self.table.contains(where: { $0.0 == state && $0.1 == event }) {
                #expect(state.after(event) == nil, "\(state) on \(event)")
            }
        }
    }

    @Test func onlyTheStatesOfAnOpenDeviceAreOpen() {
        #expect(State.allCases.filter(\.isOpen) == [.open, .running, .xrun, .suspended])
    }

    /// A USB DAC pulled out mid-write and back after two failed opens: the path the output
    /// thread takes, and the states a reopen attempt is counted in.
    @Test func aLostDeviceIsReopenedAfterFailedTries() {
        var state = State.closed
        var reopenAttempts = 0
        for event: State.Event in [.opened, .wrote, .failed, .closed, .openFailed, .openFailed, .opened, .wrote] {
            if event == .opened || event == .openFailed, state == .reopening { reopenAttempts += 1 }
            state = state.after(event) ?? state
        }
        #expect(state == .running)
        #expect(reopenAttempts == 3)
    }
}
