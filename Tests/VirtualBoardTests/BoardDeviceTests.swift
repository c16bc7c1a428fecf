import JukeboxTestSupport
import Testing

/// The device tests on the virtual board, one file per device (extensions of this suite), all
/// on one board booted for the suite and used by one test at a time. The power-cut test
/// boots boards of its own.
@Suite(.serialized, .enabled(if: VirtualBoard.unavailableReason == nil, virtualBoardSkip))
struct BoardDeviceTests {
    static let rig = Result { try BoardRig() }
}
