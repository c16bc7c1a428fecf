import Glibc
import LinuxSupport
import Logging
import Soxr
import Synchronization

/// The Snapcast output: jb-snapcast takes what the box played from a `PlayedAudioRing` and
/// writes it, as raw S16 stereo at one fixed rate (resampled with libsoxr when a track has
/// another), into the FIFO that snapserver's `pipe` source reads. snapserver then sends it to
/// every snapclient in the house, in sync.
///
/// jb-output never waits for snapserver: it only copies into the ring. Nor does this thread
/// wait for room: it takes the ring every 20 ms and writes what the FIFO takes, the rest
/// next time (a deep buffer hands over half a second at once). When snapserver has read
/// nothing for `stallNanoseconds` (stalled, e.g. starved of CPU) what waits for it is stale:
/// it is dropped, the FIFO's too (MPD's fifo output empties a full FIFO likewise), counted
/// and logged. So the rooms keep their place: after a stall they go on with what the box
/// plays then, not with everything since in a burst and as far behind the box from then on.
/// A stalled snapserver costs the listeners audio, never the box's own output.
/// The FIFO is opened read-write: snapserver opens its end again and again (it takes end of
/// file as "no writer yet"), and an O_WRONLY open fails (ENXIO) whenever it has not; holding
/// both ends keeps the FIFO alive, so snapserver finds audio whenever it opens it. Before
/// snapserver made the FIFO, what plays is discarded and the open is tried every half second.
public final class SnapcastOutput: @unchecked Sendable {
    public let fifoPath: String
    public let rate: Int
    private let ring: PlayedAudioRing
    private let logger: Logger
    private let stopRequested = Atomic<Bool>(false)
    private var thread: NamedThread?

    /// Starts jb-snapcast writing `ring`'s audio to the FIFO at `fifoPath`, at `rate` Hz.
    public init(fifoPath: String, rate: Int, ring: PlayedAudioRing, logger: Logger) {
        self.fifoPath = fifoPath
        self.rate = rate
        self.ring = ring
        self.logger = logger
        thread = NamedThread(name: "jb-snapcast") { [unowned self] in self.run() }
    }

    deinit { precondition(thread == nil, "SnapcastOutput: shutdown() was not called") }

    /// Stops jb-snapcast (within 100 ms) and closes the FIFO.
    public func shutdown() {
        stopRequested.store(true, ordering: .relaxed)
        thread?.join()
        thread = nil
    }

    private var stopping: Bool { stopRequested.load(ordering: .relaxed) }

    private func run() {
        var writer = FIFOWriter(path: fifoPath, rate: rate, logger: logger)
        var reportedDrops = 0
        var nextDropReport: UInt64 = 0
        while !stopping {
            if writer.fd == nil && !writer.open() {
                ring.consume { _, _, _ in }
                MonotonicClock.sleep(nanoseconds: 500_000_000)
                continue
            }
            ring.consume { samples, frames, rate in writer.append(samples, frames: frames, rate: rate) }
            writer.flush(now: MonotonicClock.nanoseconds())
            // At most once a minute: with snapserver stopped this goes on for as long.
            let drops = ring.droppedFrames + writer.droppedFrames
            let now = MonotonicClock.nanoseconds()
            if drops > reportedDrops && now >= nextDropReport {
                logger.info("snapcast: \(drops - reportedDrops) frames dropped while \(fifoPath) was full")
                reportedDrops = drops
                nextDropReport = now + 60_000_000_000
            }
            // snapserver reads 20 ms chunks (its chunk_ms): no need to come more often.
            MonotonicClock.sleep(nanoseconds: 20_000_000)
        }
    }
}

/// jb-snapcast's end of the FIFO: the descriptor, the resampler for a track at another rate,
/// and the bytes not yet taken by the FIFO.
private struct FIFOWriter {
    let path: String
    let rate: Int
    let logger: Logger
    private(set) var fd: FileDescriptor?
    private var resampler: Resampler?
    private var pending: [Int16] = []
    private var sent = 0
    private var resampled: [Int16] = []
    private var reportedProblem: String?
    /// Bytes written since the FIFO opened, what snapserver had taken of them when last
    /// looked at, and when that last grew (or the FIFO was empty).
    private var written = 0
    private var taken = 0
    private var takenAtNs: UInt64 = 0
    /// Frames dropped because snapserver stalled, and whether it still is.
    private(set) var droppedFrames = 0
    private var stalled = false
    /// How long snapserver may take nothing while audio waits before that audio is stale: a
    /// late read is 20-60 ms, a deep buffer's half second is read steadily meanwhile.
    static let stallNanoseconds: UInt64 = 200_000_000

    init(path: String, rate: Int, logger: Logger) {
        self.path = path
        self.rate = rate
        self.logger = logger
    }

    /// Opens the FIFO. True when open.
    mutating func open() -> Bool {
        do {
            let opened = try FileDescriptor(path: path, flags: O_RDWR | O_NONBLOCK | O_CLOEXEC)
            var info = stat()
            _ = try opened.call("fstat") { fstat($0, &info) }
            guard info.st_mode & S_IFMT == S_IFIFO else {
                report("\(path) is not a FIFO (snapserver's pipe source makes one)")
                return false
            }
            // A small FIFO keeps the listeners close to the box: 32 KiB is 170 ms at 48 kHz,
            // room for the 60 ms lead below and the 20 ms steps.
            _ = try? opened.setPipeCapacity(32768)
            fd = opened
            pending.removeAll(keepingCapacity: true)
            sent = 0
            written = 0
            taken = 0
            takenAtNs = MonotonicClock.nanoseconds()
            logger.info("snapcast: writing \(rate):16:2 to \(path)")
            reportedProblem = nil
            return true
        } catch {
            report(error.code == ENOENT ? "\(path) does not exist yet (snapserver makes it)" : "\(error)")
            return false
        }
    }

    /// Logs a problem once until it changes or the FIFO opens.
    private mutating func report(_ problem: String) {
        guard problem != reportedProblem else { return }
        reportedProblem = problem
        logger.info("snapcast: \(problem); trying again")
    }

    /// Queues `frames` stereo frames at `from` Hz, resampled to `rate` when it differs.
    mutating func append(_ samples: UnsafePointer<Int16>, frames: Int, rate from: Int) {
        guard from != rate else {
            pending.append(contentsOf: UnsafeBufferPointer(start: samples, count: frames * 2))
            return
        }
        if resampler?.inputRate != from {
            do {
                resampler = try Resampler(inputRate: from, outputRate: rate, channels: 2)
            } catch {
                report("\(error)")
                resampler = nil
                return
            }
        }
        guard let resampler else { return }
        let capacity = frames * rate / from + 64
        if resampled.count < capacity * 2 { resampled = [Int16](repeating: 0, count: capacity * 2) }
        var consumed = 0
        while consumed < frames {
            let result = resampled.withUnsafeMutableBufferPointer { output in
                Result { () throws(SoxrError) in
                    try resampler.process(
                        samples + consumed * 2, inputFrames: frames - consumed, into: output.baseAddress!,
                        outputCapacity: capacity)
                }
            }
            guard case .success(let step) = result else { return }
            pending.append(contentsOf: resampled[0..<step.produced * 2])
            consumed += step.consumed
            if step.consumed == 0 && step.produced == 0 { break }
        }
    }

    /// Writes what is pending, as much as the FIFO takes now (the rest next time); when
    /// snapserver stalled, drops it instead. An error closes the FIFO, to be opened again.
    ///
    /// What played reaches the FIFO just in time, in 20 ms steps, while snapserver reads it
    /// on its own 20 ms clock: with nothing in reserve, every late wake-up on either side is
    /// a gap in the rooms. So when the FIFO is empty as audio comes (a start, a resume, or
    /// after a stall) 60 ms of silence go first; the FIFO then stays that far ahead.
    mutating func flush(now: UInt64) {
        guard let fd else { return }
        let inFIFO = (try? fd.bytesReadable()) ?? 0
        if written - inFIFO != taken || inFIFO == 0 || pending.isEmpty {
            taken = written - inFIFO
            takenAtNs = now
            stalled = false
        } else if stalled {
            // Still nothing taken: what played meanwhile is dropped too.
            dropPending()
            return
        } else if now - takenAtNs >= Self.stallNanoseconds {
            dropStale(inFIFO: inFIFO, fd)
        }
        if !stalled, sent == 0, !pending.isEmpty, inFIFO == 0 {
            pending.insert(contentsOf: repeatElement(0, count: rate * 60 / 1000 * 2), at: 0)
        }
        while sent < pending.count * 2 {
            let start = sent
            let result = pending.withUnsafeBytes { bytes in
                Result { () throws(Errno) in try fd.writeIfReady(UnsafeRawBufferPointer(rebasing: bytes[start...])) }
            }
            switch result {
            case .success(let count?):
                sent += count
                written += count
            case .success(nil):
                // Full: the rest goes when snapserver has read more.
                return
            case .failure(let error):
                logger.info("snapcast: \(error); opening \(path) again")
                self.fd = nil
                pending.removeAll(keepingCapacity: true)
                sent = 0
                return
            }
        }
        pending.removeAll(keepingCapacity: true)
        sent = 0
    }

    /// Drops what is pending but for the rest of a frame written in part (4 bytes a frame),
    /// so that the stream stays aligned.
    private mutating func dropPending() {
        let kept = (sent + 3) / 4 * 2
        droppedFrames += (pending.count - kept) / 2
        pending.removeSubrange(kept...)
        if sent == kept * 2 {
            pending.removeAll(keepingCapacity: true)
            sent = 0
        }
    }

    /// snapserver stalled: what waits for it is dropped (pending, and the FIFO's audio but for
    /// the beginning of a frame written in part, in whole frames from the head, so snapserver
    /// stays aligned), and the FIFO gets the 60 ms lead of silence, with which the rooms pick
    /// up what the box plays when snapserver reads again. Until then, nothing more goes in.
    private mutating func dropStale(inFIFO: Int, _ fd: FileDescriptor) {
        dropPending()
        var discard = (inFIFO - sent % 4) / 4 * 4
        droppedFrames += discard / 4
        var scratch = [UInt8](repeating: 0, count: 4096)
        while discard > 0 {
            let n = scratch.withUnsafeMutableBytes { raw in
                (try? fd.readIfReady(into: raw.baseAddress!, count: min(discard, raw.count))) ?? nil
            }
            guard let n, n > 0 else { break }
            discard -= n
        }
        // What was read here counts as taken: only snapserver's reads are progress from now on.
        taken = written - ((try? fd.bytesReadable()) ?? 0)
        pending.append(contentsOf: repeatElement(0, count: rate * 60 / 1000 * 2))
        stalled = true
    }
}
