import Glibc
import JukeboxAudio
import JukeboxCore
import JukeboxStore
import LinuxSupport
import Logging

/// Runs library scans on the `jb-scan` thread, one at a time, and hands the result to the
/// control loop (through the WakeupEvent): the scanned library, read and indexed on that
/// thread too, so the loop only swaps it in. A scan asked for while one runs starts when it ends.
final class ScanRunner: @unchecked Sendable {
    private let databasePath: String
    private let musicDirectory: String
    private let lyricsDirectory: String?
    private let chapters: JukeboxConfig.Chapters
    private let logger: Logger
    private let wakeup: WakeupEvent
    private let inFlight: InFlightFiles?
    /// A FIFO the thread waits on between the scan and reading its library (tests: controls
    /// answer while the load is held; `--library-load-gate`).
    private let loadGate: String?
    /// Protects `thread`, `result`, `running` and `again`.
    private let lock = ConditionLock()
    private var thread: NamedThread?
    private var result: Result<LibrarySnapshot, any Error>?
    private var running = false
    private var again = false

    /// Tags and duration of a media file, as the scanner stores them.
    /// Chapters: MP4's from the probe, else an ID3v2 tag's CHAP frames (MP3).
    /// A file being read when the previous run died is refused: it is recorded with that
    /// problem, so the scans after it leave it alone until it changes.
    static func probe(noting inFlight: InFlightFiles?) -> @Sendable (String) throws -> ProbedTags {
        { path in
            if let inFlight {
                if inFlight.isSuspect(path) { throw AudioFileError(path: path, reason: InFlightFiles.skipReason) }
                inFlight.note(.scan, path)
            }
            defer { inFlight?.note(.scan, nil) }
            return try probe(path)
        }
    }

    private static func probe(_ path: String) throws -> ProbedTags {
        let media = try MediaProbe.probe(path: path)
        return ProbedTags(
            title: media.title, artist: media.artist, album: media.album, trackNumber: media.trackNumber,
            durationMs: media.durationMs, tags: media.tags, format: media.format, cueSheet: media.cueSheet,
            chapters: media.chapters.isEmpty ? MusicFolder.id3Chapters(path: path) : media.chapters)
    }

    init(
        databasePath: String, musicDirectory: String, lyricsDirectory: String?, chapters: JukeboxConfig.Chapters,
        logger: Logger, wakeup: WakeupEvent, inFlight: InFlightFiles?, loadGate: String? = nil
    ) {
        self.loadGate = loadGate
        self.inFlight = inFlight
        self.chapters = chapters
        self.databasePath = databasePath
        self.musicDirectory = musicDirectory
        self.lyricsDirectory = lyricsDirectory
        self.logger = logger
        self.wakeup = wakeup
    }

    /// Starts a scan now, or after the running one.
    func start() {
        lock.lock()
        defer { lock.unlock() }
        if running {
            again = true
            return
        }
        thread?.join()
        running = true
        thread = NamedThread(name: "jb-scan") { [self] in
            let outcome: Result<LibrarySnapshot, any Error>
            do {
                let scanner = LibraryScanner(
                    databasePath: databasePath, musicDirectory: musicDirectory, lyricsDirectory: lyricsDirectory,
                    audioExtensions: AudioFileKind.extensions, probe: Self.probe(noting: inFlight), logger: logger,
                    cueSheets: chapters.cueSheets, cueChaptersMs: chapters.cueChaptersMs)
                _ = try scanner.scan()
                waitAtLoadGate()
                outcome = .success(
                    try LibrarySnapshot(store: try LibraryStore.openReader(path: databasePath, logger: logger)))
            } catch {
                outcome = .failure(error)
            }
            lock.withLock {
                result = outcome
                running = false
            }
            wakeup.signal()
        }
    }

    private func waitAtLoadGate() {
        guard let loadGate else { return }
        logger.info("library scanned; waiting on \(loadGate) before reading it")
        let fd = open(loadGate, O_RDONLY)  // until a writer opens it
        guard fd >= 0 else { return }
        var byte: UInt8 = 0
        _ = read(fd, &byte, 1)
        close(fd)
    }

    /// The finished scan's result, once; starts the scan that was asked for meanwhile.
    func takeResult() -> Result<LibrarySnapshot, any Error>? {
        lock.lock()
        let taken = result
        result = nil
        let restart = taken != nil && again
        if restart { again = false }
        lock.unlock()
        if restart { start() }
        return taken
    }

    /// At shutdown: joins a finished scan; a running one is left to die with the process
    /// (its open transaction rolls back, SQLite stays consistent).
    func abandon() {
        lock.lock()
        defer { lock.unlock() }
        if running {
            if let thread { _ = Unmanaged.passRetained(thread) }
            thread = nil
        } else {
            thread?.join()
            thread = nil
        }
    }
}
