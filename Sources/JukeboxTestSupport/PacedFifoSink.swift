import Foundation
import Glibc
import LinuxSupport

/// A virtual DAC for tests: a FIFO in a temporary directory, read by a thread at the real byte
/// rate (e.g. 176,400 B/s for 44.1 kHz stereo S16) in steps of about 1 ms, recording every
/// byte with its arrival time (CLOCK_MONOTONIC).
///
/// Point ALSA at it with `alsaDevice` (`file:'PATH',raw`). Be aware of how that plugin works:
/// its slave is the `null` PCM, so ALSA itself never paces anything and snd_pcm_delay is 0.
/// The pace comes only from the FIFO: the plugin's write(2) blocks while the pipe is full,
/// and this reader empties it at the DAC rate. The plugin also keeps up to one ALSA buffer of
/// frames in its own memory before writing them out (snd_pcm_rewind takes them back;
/// snd_pcm_drop writes them out). What the pipe holds at any moment is `pipeBytes` (FIONREAD);
/// tests subtract it, because a real DAC's FIFO is not part of the player's latency.
///
/// When the writer closes the FIFO (the PCM is closed, e.g. to reopen at another rate) the
/// reader records a segment boundary and waits for the next writer.
public final class PacedFifoSink: @unchecked Sendable {
    /// A read: when it happened and which bytes of `bytes` it delivered.
    public struct Arrival: Sendable {
        public var nanoseconds: UInt64
        public var byteOffset: Int
        public var byteCount: Int
    }

    public let fifoPath: String
    public let bytesPerSecond: Double
    private let directory: TemporaryDirectory  // holds the FIFO; removed with the sink
    private let lock = ConditionLock()
    /// Guarded by `lock`.
    private var received: [UInt8] = []
    private var arrivals: [Arrival] = []
    private var segmentStarts: [Int] = []
    private var stopping = false
    private var underrunTicks = 0
    private let fd: FileDescriptor
    private var thread: NamedThread?

    /// The ALSA PCM name that writes into the FIFO.
    public var alsaDevice: String { "file:'\(fifoPath)',raw" }

    /// Creates the FIFO and starts reading. `speed` multiplies the byte rate (2 = twice real
    /// time) for tests that want pacing but not the wall time. `pipeSize` shrinks the pipe
    /// (F_SETPIPE_SZ; the kernel rounds up to a page) so that little audio hides in it.
    public init(bytesPerSecond: Int, speed: Double = 1, pipeSize: Int? = 4096, stepMicroseconds: Int = 1000) throws {
        directory = try TemporaryDirectory(prefix: "jb-sink")
        fifoPath = directory.file("dac.fifo")
        self.bytesPerSecond = Double(bytesPerSecond) * speed
        try FileSystem.makeFIFO(fifoPath)
        // O_NONBLOCK: opening the read end does not wait for a writer, and reads never block
        // past a tick. With a reader present, ALSA's open(O_WRONLY) succeeds at once.
        fd = try FileDescriptor(path: fifoPath, flags: O_RDONLY | O_NONBLOCK)
        if let pipeSize { try fd.setPipeCapacity(pipeSize) }
        let step = UInt64(stepMicroseconds) * 1000
        thread = NamedThread(name: "jb-test-dac") { [unowned self] in self.readLoop(stepNs: step) }
    }

    deinit { stop() }

    /// The pipe's capacity in bytes (F_GETPIPE_SZ).
    public var pipeCapacity: Int { (try? fd.pipeCapacity()) ?? -1 }

    /// Bytes the pipe holds now (FIONREAD): written by ALSA, not yet "played" by this DAC.
    public var pipeBytes: Int { (try? fd.bytesReadable()) ?? 0 }

    /// What this DAC has received and what the pipe holds, at one instant: every byte written
    /// so far is in one or the other. (`byteCount` then `pipeBytes` can miss bytes between
    /// them, or count a burst of reads twice, when this thread or the reader is preempted.)
    public var mark: (received: Int, inPipe: Int) { lock.withLock { (received.count, pipeBytes) } }

    /// Stops the reader thread (idempotent).
    public func stop() {
        lock.withLock { stopping = true }
        thread?.join()
        thread = nil
    }

    /// Everything received so far.
    public var bytes: [UInt8] { lock.withLock { received } }
    public var byteCount: Int { lock.withLock { received.count } }
    public var arrivalLog: [Arrival] { lock.withLock { arrivals } }
    /// Byte offsets at which a new writer started (after the previous one closed the FIFO).
    public var segmentOffsets: [Int] { lock.withLock { segmentStarts } }
    /// Ticks on which the pipe held some but not enough data (a glitch in the middle of a
    /// stream); ticks with nothing at all (paused, stopped) are not counted.
    public var underruns: Int { lock.withLock { underrunTicks } }

    /// The received bytes as S16 native-endian samples.
    public var samples: [Int16] {
        let b = bytes
        return b.withUnsafeBytes { Array($0.bindMemory(to: Int16.self).prefix(b.count / 2)) }
    }

    /// Waits until at least `count` bytes arrived, or `timeoutSeconds` passed.
    @discardableResult
    public func waitForBytes(_ count: Int, timeoutSeconds: Double) -> Bool {
        waitUntil(timeout: .seconds(timeoutSeconds), pollingEvery: .milliseconds(1)) { byteCount >= count }
    }

    /// Waits until the pipe is empty and the read that emptied it is recorded (no read for
    /// 20 ms): everything written so far was "played". False on timeout.
    public func waitUntilPlayedOut(timeoutSeconds: Double) -> Bool {
        waitUntil(timeout: .seconds(timeoutSeconds), pollingEvery: .milliseconds(5)) {
            pipeBytes == 0 && MonotonicClock.nanoseconds() > (lastArrival() ?? 0) + 20_000_000
        }
    }

    /// When the last read delivered bytes, nil before the first.
    public func lastArrival() -> UInt64? { lock.withLock { arrivals.last?.nanoseconds } }

    /// When the first read at or after `nanoseconds` delivered bytes, nil if none has yet.
    public func firstArrival(after nanoseconds: UInt64) -> UInt64? {
        lock.withLock {
            let index = firstArrivalIndex { $0.nanoseconds >= nanoseconds }
            return index < arrivals.count ? arrivals[index].nanoseconds : nil
        }
    }

    /// The arrival time of byte `offset`, nil if it has not arrived.
    public func arrivalTime(ofByte offset: Int) -> UInt64? {
        lock.withLock {
            let index = firstArrivalIndex { $0.byteOffset + $0.byteCount > offset }
            return index < arrivals.count && arrivals[index].byteOffset <= offset ? arrivals[index].nanoseconds : nil
        }
    }

    /// The index of the first arrival for which `isAtOrPast` holds (it holds for every later
    /// one too), else `arrivals.count`. Call with `lock` held.
    private func firstArrivalIndex(where isAtOrPast: (Arrival) -> Bool) -> Int {
        var lo = 0
        var hi = arrivals.count
        while lo < hi {
            let mid = (lo + hi) / 2
            if isAtOrPast(arrivals[mid]) { hi = mid } else { lo = mid + 1 }
        }
        return lo
    }

    private func readLoop(stepNs: UInt64) {
        let scratch = UnsafeMutableRawPointer.allocate(byteCount: 1 << 20, alignment: 8)
        defer { scratch.deallocate() }
        let start = MonotonicClock.nanoseconds()
        var tick: UInt64 = 0
        var credit = 0.0
        var writerPresent = false
        var started = false
        while !lock.withLock({ stopping }) {
            tick += 1
            // The DAC's clock: this sleep paces the reads, it synchronises nothing.
            MonotonicClock.sleep(
                nanoseconds: start + tick * stepNs - min(start + tick * stepNs, MonotonicClock.nanoseconds()))
            credit += bytesPerSecond * Double(stepNs) / 1e9
            var want = Int(credit) & ~3
            if want == 0 { continue }
            let wanted = want
            // Read and recorded under one lock hold (the reads do not block), so that `mark`
            // never sees bytes that left the pipe but are not received yet.
            lock.withLock {
                var got = 0
                while want > 0 {
                    let n = (try? fd.readIfReady(into: scratch + got, count: min(want, 1 << 20))) ?? nil
                    if let n, n > 0 {
                        if !writerPresent {
                            writerPresent = true
                            segmentStarts.append(received.count)
                        }
                        got += n
                        want -= n
                        continue
                    }
                    if n == 0 && writerPresent && got == 0 { writerPresent = false }
                    break
                }
                // Keep whole frames aligned to 4 bytes; a DAC that finds the pipe empty plays
                // silence and does not catch up later.
                credit -= Double(Int(credit) & ~3)
                if got > 0 && got < wanted && started { underrunTicks += 1 }
                if got > 0 {
                    started = true
                    arrivals.append(
                        Arrival(nanoseconds: MonotonicClock.nanoseconds(), byteOffset: received.count, byteCount: got))
                    received.append(contentsOf: UnsafeRawBufferPointer(start: scratch, count: got))
                }
            }
        }
    }
}
