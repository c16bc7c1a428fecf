import Glibc
import JukeboxCore
import JukeboxTestSupport
import LinuxSupport
import Logging
import Synchronization
import Testing

@testable import JukeboxAudio

/// jb-snapcast against a reader that stalls, as snapserver does when it is starved of CPU.
@Suite struct SnapcastOutputTests {
    static let rate = 48000

    /// The box plays a clock in real time (each frame its millisecond on the left, the
    /// complement on the right); the reader takes 20 ms every 20 ms, stops for a second, then
    /// goes on. After the stall the rooms are back at the box's place (as far behind as
    /// before it, not the stall's length), and every frame they got is whole.
    @Test func aStalledReaderLosesAudioButNotItsPlace() throws {
        let directory = try TemporaryDirectory(prefix: "jb-snapcast-stall")
        defer { directory.remove() }
        let fifo = directory.file("snapfifo")
        try FileSystem.makeFIFO(fifo)
        let reader = try FileDescriptor(path: fifo, flags: O_RDONLY | O_NONBLOCK)
        let ring = PlayedAudioRing()
        let output = SnapcastOutput(
            fifoPath: fifo, rate: Self.rate, ring: ring,
            logger: Logger(label: "test", factory: { _ in SwiftLogNoOpLogHandler() }))
        defer { output.shutdown() }

        // The box: 10 ms periods at the real rate, published as jb-output does once played.
        let clock = BoxClock()
        let box = NamedThread(name: "test-box") {
            let start = MonotonicClock.nanoseconds()
            var frame = 0
            var period = [Int16](repeating: 0, count: Self.rate / 100 * 2)
            var dither = TPDFDither()
            while !clock.stop.load(ordering: .relaxed) {
                for i in 0..<(Self.rate / 100) {
                    let ms = Int16(truncatingIfNeeded: (frame + i) / (Self.rate / 1000))
                    period[2 * i] = ms
                    period[2 * i + 1] = ~ms
                }
                frame += Self.rate / 100
                period.withUnsafeBufferPointer {
                    ring.publish(
                        $0.baseAddress!, count: Self.rate / 100, channels: 2, rate: Self.rate, gain: 1, dither: &dither)
                }
                clock.playedMs.store(frame / (Self.rate / 1000), ordering: .relaxed)
                // The box's clock: this sleep paces the periods, it synchronises nothing.
                let due = start + UInt64(frame) * 1_000_000_000 / UInt64(Self.rate)
                MonotonicClock.sleep(nanoseconds: due - min(due, MonotonicClock.nanoseconds()))
            }
        }
        defer {
            clock.stop.store(true, ordering: .relaxed)
            box.join()
        }

        // The reader, as snapserver's: 20 ms every 20 ms by its own clock, what was not there
        // yet taken later (snapserver waits for a whole chunk). What it got, and how far behind
        // the box its newest clock frame was.
        var got: [Int16] = []
        var owed = 0
        var buffer = [UInt8](repeating: 0, count: 65536)
        func read(forMs duration: Int) -> Int {
            let start = MonotonicClock.nanoseconds()
            var behind = 0
            for step in 1...(duration / 20) {
                owed += Self.rate / 50 * 4
                while owed > 0,
                    let n = buffer.withUnsafeMutableBytes({
                        (try? reader.readIfReady(into: $0.baseAddress!, count: min(owed, $0.count))) ?? nil
                    }), n > 0
                {
                    got += buffer[0..<n].withUnsafeBytes { Array($0.bindMemory(to: Int16.self)) }
                    owed -= n
                }
                if let last = stride(from: got.count - 2, through: 0, by: -2).first(where: { got[$0] != 0 }) {
                    behind = clock.playedMs.load(ordering: .relaxed) - Int(got[last])
                }
                let due = start + UInt64(step) * 20_000_000
                MonotonicClock.sleep(nanoseconds: due - min(due, MonotonicClock.nanoseconds()))
            }
            return behind
        }
        let before = read(forMs: 1000)
        MonotonicClock.sleep(nanoseconds: 1_000_000_000)  // the stall
        _ = read(forMs: 600)
        let after = read(forMs: 400)
        print("snapcast writer: the reader was \(before) ms behind the box before a 1 s stall, \(after) ms after it")
        #expect(before < 200, "\(before) ms")
        #expect(after < before + 150, "before the stall \(before) ms behind, after it \(after) ms")
        // Whole frames only: a frame shifted by a sample or a byte pairs the wrong halves.
        let broken = stride(from: 0, to: got.count - 1, by: 2).filter {
            got[$0 + 1] != ~got[$0] && (got[$0] != 0 || got[$0 + 1] != 0)
        }
        #expect(broken.isEmpty, "\(broken.count) broken frames of \(got.count / 2)")
    }
}

/// The test box's clock: the milliseconds it played, and its stop switch.
private final class BoxClock: Sendable {
    let playedMs = Atomic<Int>(0)
    let stop = Atomic<Bool>(false)
}
