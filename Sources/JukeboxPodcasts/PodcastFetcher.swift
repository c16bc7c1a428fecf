import Glibc
import HTTP
import JukeboxCore
import LinuxSupport
import Logging

// jb-podcast: reads feeds and downloads episodes, one job at a time, with one libcurl handle
// (HTTP). It owns the partial files while it writes them; the control thread owns the
// database and learns what happened from `takeReports()` after the WakeupEvent. Each step of
// a download is decided by the core's `EpisodeDownload`; this thread only performs it. It
// never touches the player, and nothing here blocks the control loop but `cancel`, which
// waits for a running download to let go of its file (libcurl checks its stop flag at least
// once a second).

/// Feeds and episode downloads on the `jb-podcast` thread.
public final class PodcastFetcher: @unchecked Sendable {
    /// A feed's body may not be larger than this.
    public static let feedByteLimit: Int64 = 8 << 20

    /// One episode to download.
    public struct EpisodeJob: Sendable, Equatable {
        public var episodeID: Int64
        public var url: String
        /// Where the bytes go while incomplete, and the name it gets when whole.
        public var partialPath: String
        public var finalPath: String
        /// The checkpoint to continue from.
        public var durableBytes: Int64
        public var expectedBytes: Int64?
        public var byteLimit: Int64

        /// A job.
        public init(
            episodeID: Int64, url: String, partialPath: String, finalPath: String, durableBytes: Int64,
            expectedBytes: Int64?, byteLimit: Int64
        ) {
            self.episodeID = episodeID
            self.url = url
            self.partialPath = partialPath
            self.finalPath = finalPath
            self.durableBytes = durableBytes
            self.expectedBytes = expectedBytes
            self.byteLimit = byteLimit
        }
    }

    /// What happened, for the control thread.
    public enum Report: Sendable, Equatable {
        case feed(podcastID: Int64, url: String, Result<Feed, FeedProblem>)
        /// The partial file holds `bytes` durably (fdatasync'd); record it.
        case checkpoint(episodeID: Int64, bytes: Int64, expected: Int64?)
        /// The file is whole under its final name (fsync'd, renamed, folder synced).
        case completed(episodeID: Int64, bytes: Int64)
        case gaveUp(episodeID: Int64, reason: String)
    }

    private enum Job: Sendable, Equatable {
        case feed(podcastID: Int64, url: String)
        case episode(EpisodeJob)

        var episodeID: Int64? {
            if case .episode(let job) = self { job.episodeID } else { nil }
        }
    }

    private let folder: String
    private let logger: Logger
    private let wakeup: WakeupEvent
    private let verifyTLS: Bool
    /// Protects everything below.
    private let lock = ConditionLock()
    private var jobs: [Job] = []
    private var reports: [Report] = []
    /// The episode being downloaded, and its stop switch.
    private var current: (id: Int64, stop: HTTPStop)?
    /// Bytes written to the current episode's partial file so far (a player may read them).
    private var currentBytes: Int64 = 0
    private var stopping = false
    private var thread: NamedThread?

    /// A fetcher writing into `folder` (made if missing); `wakeup` is signalled with each report.
    public init(folder: String, logger: Logger, wakeup: WakeupEvent, verifyTLS: Bool = true) {
        self.folder = folder
        self.logger = logger
        self.wakeup = wakeup
        self.verifyTLS = verifyTLS
    }

    /// Reads a feed after the jobs already queued (feeds before episodes).
    public func readFeed(podcastID: Int64, url: String) {
        let job = Job.feed(podcastID: podcastID, url: url)
        lock.withLock {
            guard !jobs.contains(job) else { return }
            let firstEpisode = jobs.firstIndex { if case .episode = $0 { true } else { false } } ?? jobs.endIndex
            jobs.insert(job, at: firstEpisode)
            startIfNeeded()
        }
    }

    /// Queues an episode's download (once); `first`: before the other episodes waiting (one
    /// the listener wants to hear).
    public func download(_ job: EpisodeJob, first: Bool = false) {
        lock.withLock {
            guard current?.id != job.episodeID else { return }
            jobs.removeAll { $0.episodeID == job.episodeID }
            let firstEpisode = jobs.firstIndex { $0.episodeID != nil } ?? jobs.endIndex
            jobs.insert(.episode(job), at: first ? firstEpisode : jobs.endIndex)
            startIfNeeded()
        }
    }

    /// Whether the episode is queued or downloading, and the bytes its file holds when downloading.
    public func downloading(_ episodeID: Int64) -> (queued: Bool, bytes: Int64?) {
        lock.withLock {
            (jobs.contains { $0.episodeID == episodeID }, current?.id == episodeID ? currentBytes : nil)
        }
    }

    /// Drops the queued downloads of these episodes (all when nil) and stops the running one
    /// if it is among them; returns once no partial file of theirs is being written.
    public func cancel(episodes: Set<Int64>?) {
        lock.lock()
        defer { lock.unlock() }
        jobs.removeAll { job in job.episodeID.map { episodes?.contains($0) ?? true } ?? false }
        while let running = current, episodes?.contains(running.id) ?? true {
            running.stop.stop()
            lock.broadcast()  // ends a backoff wait at once
            lock.wait()
        }
    }

    /// What happened since the last call.
    public func takeReports() -> [Report] {
        lock.withLock {
            defer { reports = [] }
            return reports
        }
    }

    /// Stops the running job and joins the thread.
    public func shutdown() {
        let running: NamedThread? = lock.withLock {
            stopping = true
            jobs = []
            current?.stop.stop()
            lock.broadcast()
            return thread
        }
        running?.join()
    }

    // MARK: - jb-podcast

    /// Under `lock`.
    private func startIfNeeded() {
        if thread != nil || stopping { return lock.broadcast() }
        thread = NamedThread(name: "jb-podcast") { [self] in run() }
    }

    private func run() {
        let client: HTTPClient
        do {
            client = try HTTPClient()
        } catch {
            logger.error("podcasts: \(error)")
            lock.withLock { thread = nil }
            return
        }
        while let job = nextJob() {
            switch job {
            case .feed(let podcastID, let url):
                let result = readFeed(url: url, client: client)
                report(.feed(podcastID: podcastID, url: url, result))
            case .episode(let episode):
                download(episode, client: client)
                lock.withLock {
                    current = nil
                    lock.broadcast()
                }
            }
        }
    }

    private func nextJob() -> Job? {
        lock.lock()
        defer { lock.unlock() }
        while jobs.isEmpty, !stopping { lock.wait() }
        if stopping { return nil }
        let job = jobs.removeFirst()
        if case .episode(let episode) = job {
            current = (episode.episodeID, HTTPStop())
            currentBytes = episode.durableBytes
        }
        return job
    }

    private func report(_ report: Report) {
        lock.withLock { reports.append(report) }
        wakeup.signal()
    }

    private func request(_ url: String) -> HTTPRequest {
        var request = HTTPRequest(url: url)
        request.verifyTLS = verifyTLS
        return request
    }

    /// Downloads the feed to a file beside the episodes (bounded), then reads it as a stream.
    private func readFeed(url: String, client: HTTPClient) -> Result<Feed, FeedProblem> {
        let path = "\(folder)/.feed.xml"
        do {
            _ = try FileSystem.makeDirectory(folder)
            let file = try FileDescriptor(path: path, flags: O_WRONLY | O_CREAT | O_TRUNC)
            defer { _ = try? FileSystem.removeFile(path) }
            var failure: (any Error)?
            var written: Int64 = 0
            let tooLarge = FeedProblem("feed larger than \(Self.feedByteLimit >> 20) MiB")
            // Refused at the announced length, or at the byte past the limit.
            _ = try client.get(request(url)) { response in
                guard let length = response.header("content-length").flatMap({ Int64($0) }) else { return true }
                if length > Self.feedByteLimit { failure = tooLarge }
                return failure == nil
            } body: { bytes in
                written += Int64(bytes.count)
                guard written <= Self.feedByteLimit else {
                    failure = tooLarge
                    return false
                }
                do {
                    try file.writeAll(bytes.baseAddress!, count: bytes.count)
                    return true
                } catch {
                    failure = error
                    return false
                }
            }
            if let problem = failure as? FeedProblem { return .failure(problem) }
            if let failure { return .failure(FeedProblem("\(failure)")) }
            return FeedReader.read(path: path)
        } catch let error as HTTPError {
            return .failure(FeedProblem(error.message + (error.status > 0 ? " (HTTP \(error.status))" : "")))
        } catch {
            return .failure(FeedProblem("\(error)"))
        }
    }

    /// One episode, from its checkpoint to the end, a give-up, or a cancel.
    private func download(_ job: EpisodeJob, client: HTTPClient) {
        guard let stop = lock.withLock({ current?.stop }) else { return }
        var machine = EpisodeDownload(durable: job.durableBytes, expected: job.expectedBytes, byteLimit: job.byteLimit)
        var pending = machine.handle(.start)
        let file: FileDescriptor
        do {
            _ = try FileSystem.makeDirectory(folder)
            file = try FileDescriptor(path: job.partialPath, flags: O_WRONLY | O_CREAT)
        } catch {
            report(.gaveUp(episodeID: job.episodeID, reason: "\(error)"))
            return
        }
        var written: Int64 = 0
        /// Performs what needs no network; false when the transfer must stop (the machine
        /// waits, restarts or gave up: what is left goes back to `pending`).
        func perform(_ actions: [EpisodeDownload.Action]) throws -> Bool {
            for (index, action) in actions.enumerated() {
                switch action {
                case .truncate(let bytes):
                    try file.truncate(to: Int(bytes))
                    written = bytes
                    lock.withLock { currentBytes = bytes }
                case .checkpoint(let bytes, let expected):
                    try file.syncData()
                    report(.checkpoint(episodeID: job.episodeID, bytes: bytes, expected: expected))
                case .complete(let bytes):
                    try file.syncData()
                    try FileSystem.rename(job.partialPath, to: job.finalPath)
                    try FileDescriptor.syncFolder(containing: job.finalPath)
                    report(.completed(episodeID: job.episodeID, bytes: bytes))
                case .giveUp(let reason):
                    report(.gaveUp(episodeID: job.episodeID, reason: reason))
                case .request, .wait:
                    pending = Array(actions[index...])
                    return false
                }
            }
            return true
        }
        do {
            while !pending.isEmpty, !stop.isStopped {
                let actions = pending
                pending = []
                guard try !perform(actions) else { continue }
                let next = pending.removeFirst()
                switch next {
                case .wait(let ms):
                    let deadline = MonotonicClock.nanoseconds() + UInt64(ms) * 1_000_000
                    lock.withLock {
                        while !stop.isStopped, !stopping, MonotonicClock.nanoseconds() < deadline {
                            _ = lock.wait(nanoseconds: deadline - MonotonicClock.nanoseconds())
                        }
                    }
                    pending += machine.handle(.start)
                case .request(let from):
                    let following = try transfer(job, from: from, machine: &machine, stop: stop, client: client) {
                        bytes in
                        try file.writeAll(bytes.baseAddress!, count: bytes.count, at: written)
                        written += Int64(bytes.count)
                        lock.withLock { currentBytes = written }
                    } perform: { actions in
                        try perform(actions)
                    }
                    pending += following
                default:
                    preconditionFailure("Invalid state")
                }
            }
        } catch {
            // The disk, not the network: full, or the folder gone (clear cache).
            report(.gaveUp(episodeID: job.episodeID, reason: "\(error)"))
        }
    }

    /// One GET from `from`; returns the machine's actions that follow its end.
    private func transfer(
        _ job: EpisodeJob, from: Int64, machine: inout EpisodeDownload, stop: HTTPStop, client: HTTPClient,
        write: (UnsafeRawBufferPointer) throws -> Void, perform: ([EpisodeDownload.Action]) throws -> Bool
    ) throws -> [EpisodeDownload.Action] {
        var request = request(job.url)
        // No maxBodyBytes: the machine gives up on a length over the limit at once, where
        // libcurl's limit would be one more failure to retry.
        request.resumeFrom = from
        var responded = false
        var halted = false
        var diskError: (any Error)?
        func respond(_ response: HTTPResponse) -> Bool {
            responded = true
            let actions = machine.handle(
                .response(
                    status: response.status, contentLength: response.header("content-length").flatMap { Int64($0) },
                    range: response.header("content-range").flatMap(EpisodeDownload.ContentRange.parse)))
            return go(actions)
        }
        func go(_ actions: [EpisodeDownload.Action]) -> Bool {
            do {
                if try perform(actions) { return true }
            } catch {
                diskError = error
            }
            halted = true
            return false
        }
        do {
            let outcome = try client.get(request, stop: stop) {
                respond($0)
            } body: { bytes in
                do {
                    try write(bytes)
                } catch {
                    diskError = error
                    halted = true
                    return false
                }
                return go(machine.handle(.wrote(count: Int64(bytes.count))))
            }
            if let diskError { throw diskError }
            if halted { return [] }
            switch outcome {
            case .stopped: return []
            case .complete(let response):
                if !responded, !respond(response) { return [] }
                return machine.handle(.ended)
            }
        } catch let error as HTTPError {
            if let diskError { throw diskError }
            if halted || stop.isStopped { return [] }
            if !responded, error.status >= 400 || (error.status == 200 && from > 0) {
                // curl refuses a 200 to a Range request ("cannot resume") and every status
                // from 400: the machine decides what the status means.
                _ = go(machine.handle(.response(status: error.status, contentLength: nil, range: nil)))
                return []
            }
            return machine.handle(.failed(error.message))
        }
    }
}
