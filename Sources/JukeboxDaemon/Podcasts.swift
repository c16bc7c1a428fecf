import JukeboxAudio
import JukeboxCore
import JukeboxPodcasts
import JukeboxStore
import LinuxSupport
import Logging

/// The podcasts on the control thread: subscriptions and episodes in the store, the cache
/// folder's files, and the jobs handed to jb-podcast (`PodcastFetcher`, made on first use, so
/// a box without podcasts opens neither libcurl nor libxml2 and starts no thread). Which
/// files make room is the core's `EpisodeCache`; how a download proceeds, `EpisodeDownload`.
final class Podcasts {
    let store: LibraryStore
    let logger: Logger
    /// The cache folder.
    let folder: String
    let byteLimit: Int64
    private let configFeeds: [String]
    private let wakeup: WakeupEvent
    private var fetcher: PodcastFetcher?
    /// The episode being downloaded (never evicted).
    private var downloading: Int64?
    /// The episode the player has (never evicted); the daemon keeps it up to date.
    var playing: Int64?
    /// The pipeline's files played while they download: told when a download ends.
    private let growingFiles: GrowingFiles
    /// An episode that became whole while it played (its length is known now).
    var becameWhole: Int64?
    /// The subscriptions, numbered from 1 in `list`.
    private(set) var subscriptions: [Subscription] = []

    init(config: JukeboxConfig, store: LibraryStore, logger: Logger, wakeup: WakeupEvent, growingFiles: GrowingFiles) {
        self.store = store
        self.growingFiles = growingFiles
        self.logger = logger
        self.folder = config.podcastCacheFolder
        self.byteLimit = config.podcasts.cacheLimitBytes
        self.configFeeds = config.podcasts.feeds
        self.wakeup = wakeup
    }

    /// At start: the config's feeds are subscribed, every feed is read again and the
    /// downloads a stop or power cut interrupted continue from their checkpoints (the one the
    /// restored queue plays first).
    func start() {
        do {
            for url in configFeeds { try store.subscribe(url: url, fromConfig: true) }
            subscriptions = try store.subscriptions()
            for subscription in subscriptions {
                for record in try store.episodes(of: subscription.id) where record.state == .downloading {
                    queueDownload(record, first: record.id == playing)
                }
            }
        } catch {
            logger.error("podcasts: \(error)")
        }
        refresh()
    }

    /// The path of an episode's file once whole (its partial file adds `.part`).
    func path(of record: EpisodeRecord) -> String { "\(folder)/\(record.fileName)" }

    /// Reads every feed again (when, is the box machine's: `BoxMachine.podcastRefreshMs`).
    func refresh() {
        for subscription in subscriptions {
            fetcherOnFirstUse().readFeed(podcastID: subscription.id, url: subscription.url)
        }
    }

    // MARK: - console

    /// A `podcast` command's reply.
    func handle(_ command: PodcastCommand) -> String {
        do {
            switch command {
            case .add(let url):
                let added = try store.subscribe(url: url, fromConfig: false)
                subscriptions = try store.subscriptions()
                guard let subscription = subscriptions.first(where: { $0.url == url }) else {
                    return "error: not added"
                }
                fetcherOnFirstUse().readFeed(podcastID: subscription.id, url: url)
                logger.info("podcasts: \(added ? "subscribed to" : "already following") \(url)")
                return "OK podcast \(subscriptions.count): \(url)" + (added ? "" : " (already subscribed)")
            case .list:
                subscriptions = try store.subscriptions()
                if subscriptions.isEmpty { return "no podcasts (podcast add URL)" }
                return try subscriptions.enumerated().map { index, subscription in
                    let episodes = try store.episodes(of: subscription.id)
                    let downloaded = episodes.filter { $0.state == .complete }.count
                    var line =
                        "\(index + 1). \(subscription.title) (\(episodes.count) episodes, \(downloaded) downloaded)"
                    if let problem = subscription.problem { line += " [\(problem)]" }
                    return line
                }.joined(separator: "\n")
            case .episodes(let number):
                guard let subscription = try subscription(number) else { return noSuchPodcast(number) }
                let episodes = try store.episodes(of: subscription.id)
                if episodes.isEmpty { return "\(subscription.title): no episodes" }
                return
                    ([subscription.title]
                    + episodes.enumerated().map { index, record in "\(index + 1). \(describe(record))" })
                    .joined(separator: "\n")
            case .remove(let which):
                subscriptions = try store.subscriptions()
                guard
                    let subscription = Int(which).flatMap({ try? self.subscription($0) })
                        ?? subscriptions.first(where: { $0.url == which })
                else { return "error: no podcast \(which) (podcast list)" }
                let episodes = try store.episodes(of: subscription.id)
                fetcher?.cancel(episodes: Set(episodes.map(\.id)))
                try store.unsubscribe(id: subscription.id)
                for record in episodes where record.file != nil { removeFiles(of: record) }
                subscriptions = try store.subscriptions()
                logger.info("podcasts: unsubscribed from \(subscription.url)")
                return "OK removed \(subscription.title)"
                    + (subscription.fromConfig ? " (it comes back at the next start: it is in [podcasts] feeds)" : "")
            case .refresh:
                subscriptions = try store.subscriptions()
                refresh()
                return "OK reading \(subscriptions.count) feed\(subscriptions.count == 1 ? "" : "s")"
            case .download(let number, let index):
                guard let record = try episode(number, index) else { return noSuchEpisode(number, index) }
                if record.state == .complete { return "OK already downloaded: \(record.episode.title)" }
                queueDownload(record)
                return "OK downloading \(record.episode.title)"
            case .play:
                preconditionFailure("podcast play goes to the daemon (Daemon.playEpisode)")
            case .clearCache:
                return clearCache()
            }
        } catch {
            logger.error("podcasts: \(error)")
            return "error: \(error)"
        }
    }

    /// The episode numbered `index` in podcast `number`'s list (new first).
    func episode(_ number: Int, _ index: Int) throws -> EpisodeRecord? {
        guard let subscription = try subscription(number) else { return nil }
        let episodes = try store.episodes(of: subscription.id)
        return index <= episodes.count ? episodes[index - 1] : nil
    }

    private func subscription(_ number: Int) throws -> Subscription? {
        subscriptions = try store.subscriptions()
        return number >= 1 && number <= subscriptions.count ? subscriptions[number - 1] : nil
    }

    func noSuchPodcast(_ number: Int) -> String { "error: no podcast \(number) (podcast list)" }
    func noSuchEpisode(_ number: Int, _ index: Int) -> String {
        "error: no episode \(index) in podcast \(number) (podcast \(number))"
    }

    private func describe(_ record: EpisodeRecord) -> String {
        var state: String
        switch record.state {
        case .listed: state = ""
        case .complete: state = " [downloaded]"
        case .downloading:
            let bytes = fetcher?.downloading(record.id).bytes ?? record.durableBytes
            state = " [downloading \(bytes / 1024) of \(record.expectedBytes.map { "\($0 / 1024)" } ?? "?") kB]"
        case .failed: state = " [failed: \(record.problem ?? "")]"
        }
        if record.played { state += " [played]" }
        let date = record.episode.published.map { " (\(CivilTime.dayText($0)))" } ?? ""
        return record.episode.title + date + state
    }

    // MARK: - downloads and the cache

    /// Starts (or continues) an episode's download once there is room for it; `first`:
    /// before the other episodes waiting. Returns whether it is downloading.
    @discardableResult
    func queueDownload(_ record: EpisodeRecord, first: Bool = false) -> Bool {
        var record = record
        let incoming = max(0, (record.expectedBytes ?? record.episode.length ?? 0) - record.durableBytes)
        guard makeRoom(for: incoming, besides: record.id) else {
            record.state = .failed
            record.problem = "does not fit in the cache (\(byteLimit >> 20) MB)"
            logger.warning("podcasts: \(record.episode.title): \(record.problem!)")
            try? store.saveEpisode(record, durable: false)
            return false
        }
        record.state = .downloading
        record.file = record.fileName
        record.problem = nil
        do {
            try store.saveEpisode(record, durable: true)
        } catch {
            logger.error("podcasts: \(error)")
            return false
        }
        fetcherOnFirstUse().download(
            PodcastFetcher.EpisodeJob(
                episodeID: record.id, url: record.episode.enclosureURL,
                partialPath: "\(folder)/\(record.fileName).part",
                finalPath: "\(folder)/\(record.fileName)", durableBytes: record.durableBytes,
                expectedBytes: record.expectedBytes, byteLimit: byteLimit), first: first)
        return true
    }

    /// Deletes cached episodes (the core's order) until `incoming` more bytes fit; false,
    /// deleting nothing, when they cannot.
    private func makeRoom(for incoming: Int64, besides id: Int64) -> Bool {
        do {
            let cached = try store.episodes(of: nil).filter { $0.id != id }
            let entries = cached.map { record in
                EpisodeCache.Entry(
                    id: record.id,
                    bytes: fileSize(path(of: record) + (record.state == .complete ? "" : ".part"))
                        ?? record.durableBytes, played: record.played,
                    published: record.episode.published, pinned: record.id == downloading || record.id == playing)
            }
            guard let evictions = EpisodeCache.evictions(of: entries, toFit: incoming, limit: byteLimit) else {
                return false
            }
            for id in evictions {
                guard let record = cached.first(where: { $0.id == id }) else { continue }
                fetcher?.cancel(episodes: [id])
                removeFiles(of: record)
                var emptied = record
                emptied.state = .listed
                emptied.file = nil
                emptied.durableBytes = 0
                emptied.expectedBytes = nil
                try store.saveEpisode(emptied, durable: false)
                logger.info("podcasts: \(record.episode.title) deleted from the cache to make room")
            }
            return true
        } catch {
            logger.error("podcasts: \(error)")
            return false
        }
    }

    private func fileSize(_ path: String) -> Int64? {
        (try? FileSystem.status(path)).map { Int64($0.st_size) }
    }

    private func removeFiles(of record: EpisodeRecord) {
        for path in ["\(folder)/\(record.fileName)", "\(folder)/\(record.fileName).part"] {
            do {
                try FileSystem.removeFile(path)
            } catch {
                logger.error("podcasts: \(error)")
            }
        }
    }

    /// `clear cache`: stops the downloads, forgets every file (durably), then deletes them.
    func clearCache() -> String {
        fetcher?.cancel(episodes: nil)
        downloading = nil
        if let playing, let record = try? record(playing) {
            growingFiles.end(path: path(of: record), .failed("clear cache stopped its download"))
        }
        do {
            let cached = try store.episodes(of: nil).filter { $0.id != playing }
            try store.forgetDownloads(keeping: playing)
            for record in cached { removeFiles(of: record) }
            logger.info("podcasts: cache cleared (\(cached.count) files)")
            return "OK cache cleared: \(cached.count) episode\(cached.count == 1 ? "" : "s")"
        } catch {
            logger.error("podcasts: \(error)")
            return "error: \(error)"
        }
    }

    /// What jb-podcast reported: stores it, queues the newest episode of a feed just read,
    /// and returns the lines to announce on the console.
    func handleReports() -> [String] {
        guard let fetcher else { return [] }
        var announcements: [String] = []
        for report in fetcher.takeReports() {
            do {
                announcements += try handle(report)
            } catch {
                logger.error("podcasts: \(error)")
            }
        }
        return announcements
    }

    private func handle(_ report: PodcastFetcher.Report) throws -> [String] {
        switch report {
        case .feed(let podcastID, let url, .success(let feed)):
            guard subscriptions.contains(where: { $0.id == podcastID }) else { return [] }
            try store.saveFeed(feed, podcastID: podcastID)
            subscriptions = try store.subscriptions()
            let skipped = feed.skippedItems > 0 ? ", \(feed.skippedItems) items without audio or beyond the limit" : ""
            logger.info("podcasts: \(url): \(feed.episodes.count) episodes\(skipped)")
            // The newest episode downloads by itself; the others when asked for.
            if let newest = try store.episodes(of: podcastID).first, newest.state == .listed, !newest.played {
                queueDownload(newest)
            }
            return ["podcast \(feed.title): \(feed.episodes.count) episodes"]
        case .feed(let podcastID, let url, .failure(let problem)):
            // One line; the subscription and its episodes stay as they were.
            logger.warning("podcasts: \(url): \(problem)")
            try store.saveFeedProblem(problem.message, podcastID: podcastID)
            subscriptions = try store.subscriptions()
            return ["podcast \(url): \(problem)"]
        case .checkpoint(let id, let bytes, let expected):
            // A row cleared meanwhile (clear cache, eviction) takes no stale checkpoint.
            guard var record = try record(id), record.state == .downloading else { return [] }
            downloading = id
            let knewLength = record.expectedBytes
            record.durableBytes = bytes
            record.expectedBytes = expected
            if let expected, expected != knewLength,
                !makeRoom(for: max(0, expected - bytes), besides: id)
            {
                fetcher?.cancel(episodes: [id])
                removeFiles(of: record)
                record.state = .failed
                record.durableBytes = 0
                record.expectedBytes = nil
                record.file = nil
                record.problem = "does not fit in the cache (\(byteLimit >> 20) MB)"
                logger.warning("podcasts: \(record.episode.title): \(record.problem!)")
            }
            try store.saveEpisode(record, durable: true)
            logger.debug("podcasts: \(record.episode.title): \(bytes) of \(expected.map { "\($0)" } ?? "?") bytes kept")
            return []
        case .completed(let id, let bytes):
            if downloading == id { downloading = nil }
            guard var record = try record(id) else { return [] }
            guard record.state == .downloading else {
                removeFiles(of: record)
                return []
            }
            record.state = .complete
            record.durableBytes = bytes
            record.expectedBytes = bytes
            try store.saveEpisode(record, durable: true)
            if growingFiles.end(path: path(of: record), .complete) { becameWhole = id }
            logger.info("podcasts: downloaded \(record.episode.title) (\(bytes) bytes)")
            return ["downloaded \(record.episode.title)"]
        case .gaveUp(let id, let reason):
            if downloading == id { downloading = nil }
            guard var record = try record(id) else { return [] }
            record.state = .failed
            record.problem = reason
            try store.saveEpisode(record, durable: false)
            growingFiles.end(path: path(of: record), .failed(reason))
            logger.warning("podcasts: \(record.episode.title): \(reason)")
            return ["podcast download failed: \(record.episode.title): \(reason)"]
        }
    }

    /// An episode's row by id (any podcast).
    func record(_ id: Int64) throws -> EpisodeRecord? {
        for subscription in subscriptions {
            if let found = try store.episodes(of: subscription.id).first(where: { $0.id == id }) { return found }
        }
        return nil
    }

    private func fetcherOnFirstUse() -> PodcastFetcher {
        if let fetcher { return fetcher }
        let made = PodcastFetcher(folder: folder, logger: logger, wakeup: wakeup)
        fetcher = made
        return made
    }

    /// Stops jb-podcast (a download keeps its checkpoint and continues at the next start).
    func shutdown() {
        fetcher?.shutdown()
    }
}

// MARK: - episodes as tracks

extension Podcasts {
    /// Episodes' track ids lie below this: library rows are positive and web radio's stations
    /// take the small negative ids (-1, -2, ...), so neither ever meets an episode's.
    static let trackIDBase: TrackID = -(1 << 40)

    /// The player's id for an episode.
    static func trackID(_ episodeID: Int64) -> TrackID { trackIDBase - episodeID }

    /// The episode a track id names, if it names one.
    static func episodeID(_ track: TrackID) -> Int64? { track < trackIDBase ? trackIDBase - track : nil }

    /// An episode as a track of the player, its file's absolute path as the path.
    func track(_ record: EpisodeRecord, durationMs: (String) -> Int64?) -> TrackInfo {
        let path = path(of: record)
        let podcast = subscriptions.first { $0.id == record.podcastID }?.title
        return TrackInfo(
            id: Self.trackID(record.id), path: path, title: record.episode.title, artist: podcast, album: podcast,
            durationMs: durationMs(path))
    }

    /// The podcasts and their episodes (new first) for the menu.
    func menuList() -> [MenuCatalog.Podcast] {
        do {
            subscriptions = try store.subscriptions()
            return try subscriptions.map { subscription in
                MenuCatalog.Podcast(
                    title: subscription.title,
                    episodes: try store.episodes(of: subscription.id).map { record in
                        (record.id, record.episode.title)
                    })
            }
        } catch {
            logger.error("podcasts: \(error)")
            return []
        }
    }

    /// Every downloaded episode as a track (the queue and the resume journal may name them),
    /// with the length its row knows (probed when played). Those still downloading too, as files
    /// that grow: the queue a restart restores may be at one that played while it downloaded.
    func tracks() -> [TrackID: TrackInfo] {
        do {
            if subscriptions.isEmpty { subscriptions = try store.subscriptions() }
            let cached = try store.episodes(of: nil).filter { $0.state == .complete || $0.state == .downloading }
            for record in cached where record.state == .downloading {
                let path = path(of: record)
                if growingFiles.file(path: path) == nil {
                    growingFiles.add(GrowingFile(path: path, partialPath: path + ".part"))
                }
            }
            return Dictionary(
                uniqueKeysWithValues: cached.map { ($0.trackIDValue, track($0, durationMs: { _ in nil })) })
        } catch {
            logger.error("podcasts: \(error)")
            return [:]
        }
    }

    /// Where each episode was left, for the player's long-track positions.
    func savedPositions() -> [TrackID: Int64] {
        do {
            var positions: [TrackID: Int64] = [:]
            for subscription in try store.subscriptions() {
                for record in try store.episodes(of: subscription.id) where record.positionMs > 0 {
                    positions[record.trackIDValue] = record.positionMs
                }
            }
            return positions
        } catch {
            logger.error("podcasts: \(error)")
            return [:]
        }
    }

    /// The keeper remembers an episode's position (as for a long track).
    func remember(positionMs: Int64, ofTrack track: TrackID) {
        update(track) { $0.positionMs = positionMs }
    }

    /// The keeper forgot an episode's position: it was played to its end.
    func played(track: TrackID) {
        update(track) { record in
            record.positionMs = 0
            record.played = true
        }
        logger.info("podcasts: episode \(Self.episodeID(track) ?? 0) played")
    }

    private func update(_ track: TrackID, _ change: (inout EpisodeRecord) -> Void) {
        do {
            guard let id = Self.episodeID(track), var record = try record(id) else { return }
            change(&record)
            try store.saveEpisode(record, durable: false)
        } catch {
            logger.error("podcasts: \(error)")
        }
    }
}

extension EpisodeRecord {
    fileprivate var trackIDValue: TrackID { Podcasts.trackID(id) }
}
