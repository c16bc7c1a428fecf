import JukeboxCore
import LinuxSupport

// A podcast episode played while it downloads. jb-podcast appends to `<file>.part` and renames it
// to `<file>` once whole; the decoder reads the partial file as far as it goes. At its end,
// while the download runs, the decoder waits (each read that finds nothing new returns no frames
// after a short sleep, so jb-decode still sees a stop, a seek or a pause at once) until enough
// more has arrived, then opens the file again, seeks a little before the frame it had reached and
// decodes up to it: every decoder seeks sample-exactly, and the frames decoded before it fill
// libmpg123's bit reservoir and filter state as a decode from the start had, so the audio goes
// on bit for bit as it would have (seeking to the frame itself garbles an MP3 frame after it, as
// any MP3 seek does). Only the whole file's end
// ends the track; a download that gives up ends it with the reason, after what had arrived.

/// A file still being written: a podcast episode downloading to `partialPath`, renamed to `path`
/// once whole. Shared by the control thread (which says how the download ended) and the decoder
/// on jb-decode (which says whether it waits for bytes).
public final class GrowingFile: Sendable {
    public enum Outcome: Sendable, Equatable {
        case downloading
        case complete
        /// The download gave up, for this reason.
        case failed(String)
    }

    /// Where the whole file will be (the track's path).
    public let path: String
    public let partialPath: String
    private let state = PILock<(outcome: Outcome, waiting: Bool)>((.downloading, false))

    public init(path: String, partialPath: String) {
        self.path = path
        self.partialPath = partialPath
    }

    public var outcome: Outcome { state.withLock { $0.outcome } }
    /// Whether the decoder has played all that arrived and waits for more (buffering).
    public var isWaiting: Bool { state.withLock { $0.waiting } }

    func end(_ outcome: Outcome) { state.withLock { $0.outcome = outcome } }
    func setWaiting(_ waiting: Bool) { state.withLock { $0.waiting = waiting } }

    /// The bytes there now, and whether they are the whole file (renamed into place).
    func arrived() -> (bytes: Int64, whole: Bool) {
        if let whole = try? FileSystem.status(path) { return (Int64(whole.st_size), true) }
        return ((try? FileSystem.status(partialPath)).map { Int64($0.st_size) } ?? 0, false)
    }
}

/// The files a pipeline may play while they grow, by the path they will have (the daemon adds
/// an episode it plays before it is whole, and ends it when its download ends).
public final class GrowingFiles: Sendable {
    private let files = PILock<[String: GrowingFile]>([:])

    public init() {}

    public func add(_ file: GrowingFile) { files.withLock { $0[file.path] = file } }

    /// The download of `path` ended: its decoder learns how, and new decoders open the file as
    /// any other (or fail to, when it never became whole). Returns whether it was growing.
    @discardableResult
    public func end(path: String, _ outcome: GrowingFile.Outcome) -> Bool {
        guard let file = files.withLock({ $0.removeValue(forKey: path) }) else { return false }
        file.end(outcome)
        return true
    }

    public func file(path: String) -> GrowingFile? { files.withLock { $0[path] } }
}

/// Decodes a `GrowingFile` as far as it has arrived and waits at its end for more (see above).
/// A source wider than 16 bits is read wide through it too.
final class GrowingFileDecoder: WideAudioDecoder {
    private let file: GrowingFile
    private var inner: any AudioDecoder
    /// Whether `inner` reads the whole file: then its end is the episode's.
    private var whole: Bool
    /// The frame the next read returns.
    private var position: Int64 = 0
    /// While waiting: the bytes there when the audio ran out.
    private var waitingAt: Int64?
    let format: AudioFormat
    /// The source's bits per sample (each opening of the file must give the same).
    let bitsPerSample: Int

    /// More bytes than this arrived since the audio ran out: open the file again (each opening
    /// seeks from the start or a seek hint, so not for every few kB).
    static let reopenBytes: Int64 = 32 << 10
    static let pollNanoseconds: UInt64 = 20_000_000
    /// How long the first bytes (the headers) are waited for before the item fails.
    static let startNanoseconds: UInt64 = 10_000_000_000
    /// Frames decoded and dropped before the frame reached, after opening again: more than the
    /// MPEG frames an MP3 frame's bit reservoir and the filter banks reach back over.
    static let warmUpFrames: Int64 = 16384

    init(_ file: GrowingFile) throws {
        self.file = file
        let deadline = MonotonicClock.nanoseconds() + Self.startNanoseconds
        while true {
            let (bytes, whole) = file.arrived()
            do {
                inner = try openDecoder(path: whole ? file.path : file.partialPath)
                self.whole = whole
                break
            } catch {
                guard !whole, file.outcome == .downloading, MonotonicClock.nanoseconds() < deadline else {
                    if whole { throw error }
                    throw AudioFileError(
                        path: file.path, reason: "\(bytes) bytes downloaded are not enough to start playing: \(error)")
                }
                file.setWaiting(true)
                MonotonicClock.sleep(nanoseconds: Self.pollNanoseconds * 5)
            }
        }
        format = inner.format
        bitsPerSample = Self.bits(of: inner)
        file.setWaiting(false)
    }

    /// Known once whole (a partial file's own length is where it stops).
    var lengthFrames: Int64? { whole ? inner.lengthFrames : nil }
    var seekHint: SeekHint? { inner.seekHint }
    var replayGain: ReplayGainInfo? { inner.replayGain }

    private static func bits(of decoder: any AudioDecoder) -> Int {
        (decoder as? any WideAudioDecoder)?.bitsPerSample ?? 16
    }

    func read(into buffer: UnsafeMutableBufferPointer<Int16>) throws -> DecodeResult {
        try read { try $0.read(into: buffer) }
    }

    func read(wide buffer: UnsafeMutableBufferPointer<Int32>) throws -> DecodeResult {
        try read { inner in
            guard let wide = inner as? any WideAudioDecoder else { preconditionFailure("read(wide:) of an S16 source") }
            return try wide.read(wide: buffer)
        }
    }

    /// What `decode(inner)` gives of what arrived, or nothing while waiting for more.
    private func read(_ decode: (any AudioDecoder) throws -> DecodeResult) throws -> DecodeResult {
        if let waitingAt, !(try resume(after: waitingAt)) {
            MonotonicClock.sleep(nanoseconds: Self.pollNanoseconds)
            return DecodeResult(frames: 0, isEnd: false, formatChanged: false)
        }
        var result: DecodeResult
        do { result = try decode(inner) } catch {
            // A partial file ends mid-frame: that is where the download is, not a broken file.
            guard !whole else { throw error }
            result = DecodeResult(frames: 0, isEnd: true, formatChanged: false)
        }
        position += Int64(result.frames)
        guard result.isEnd, !whole else { return result }
        if case .failed(let reason) = file.outcome, !file.arrived().whole {
            throw AudioFileError(path: file.path, reason: "the download stopped (\(reason)); played what had arrived")
        }
        waitingAt = file.arrived().bytes
        file.setWaiting(true)
        return DecodeResult(frames: result.frames, isEnd: false, formatChanged: false)
    }

    /// Opens the file again at `position` once enough arrived after `bytes` (or it is whole, or
    /// its download failed); returns whether it did.
    private func resume(after bytes: Int64) throws -> Bool {
        let now = file.arrived()
        let failed = if case .failed = file.outcome { true } else { false }
        guard now.whole || failed || now.bytes >= bytes + Self.reopenBytes else { return false }
        let hint = inner.seekHint
        let reopened = try openDecoder(path: now.whole ? file.path : file.partialPath)
        guard reopened.format == format, Self.bits(of: reopened) == bitsPerSample else {
            throw AudioFileError(path: file.path, reason: "the file changed format while it downloaded")
        }
        let from = max(0, position - Self.warmUpFrames)
        let reached: Bool
        do {
            _ = try reopened.seek(toFrame: from, hint: hint)
            reached = try Self.skip(position - from, of: reopened)
        } catch {
            guard !now.whole, !failed else { throw error }
            reached = false
        }
        guard reached else {
            // Not there yet (a seek past what arrived): wait for more.
            if now.whole { throw AudioFileError(path: file.path, reason: "the file ends before frame \(position)") }
            waitingAt = now.bytes
            return false
        }
        inner = reopened
        whole = now.whole
        waitingAt = nil
        file.setWaiting(false)
        return true
    }

    /// Decodes and drops `frames` frames of `decoder`; returns whether it had them.
    private static func skip(_ frames: Int64, of decoder: any AudioDecoder) throws -> Bool {
        let capacity = 4096
        let scratch = UnsafeMutableBufferPointer<Int16>.allocate(capacity: capacity * AudioPipeline.maxChannels)
        defer { scratch.deallocate() }
        var left = frames
        while left > 0 {
            let room = Int(min(left, Int64(capacity))) * decoder.format.channels
            let r = try decoder.read(into: UnsafeMutableBufferPointer(rebasing: scratch[0..<room]))
            left -= Int64(r.frames)
            if r.isEnd { break }
        }
        return left <= 0
    }

    /// A seek past what arrived waits for it: the next reads find the end and wait.
    func seek(toFrame frame: Int64) throws { _ = try seek(toFrame: frame, hint: nil) }

    func seek(toFrame frame: Int64, hint: SeekHint?) throws -> Bool {
        position = frame
        do {
            let used = try inner.seek(toFrame: frame, hint: hint)
            waitingAt = nil
            file.setWaiting(false)
            return used
        } catch {
            guard !whole else { throw error }
            waitingAt = file.arrived().bytes
            file.setWaiting(true)
            return false
        }
    }
}
