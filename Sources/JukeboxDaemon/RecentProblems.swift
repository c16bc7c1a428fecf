import Glibc
import JukeboxCore
import LinuxSupport
import Logging

/// The last problems the daemon logged (error and critical), for `system` and the web page's
/// `/system`: the journal may not be readable there (jukebox-web is not in systemd-journal).
/// At most `limit` lines of at most `lineLimit` characters; any thread but the output thread
/// (which never logs) records, under a lock.
final class RecentProblems: Sendable {
    static let shared = RecentProblems()
    static let limit = 5
    static let lineLimit = 300

    private let store = PILock<[String]>([])

    func record(_ line: String) {
        let kept = line.count > Self.lineLimit ? String(line.prefix(Self.lineLimit)) + "…" : line
        store.withLock { lines in
            if lines.count == Self.limit { lines.removeFirst() }
            lines.append(kept)
        }
    }

    /// Oldest first.
    var lines: [String] { store.withLock { $0 } }
}

/// Records error and critical messages into `RecentProblems.shared` (beside the handler that
/// prints them: `MultiplexLogHandler`), each with its wall-clock time.
struct ProblemRecorder: LogHandler {
    var metadata: Logger.Metadata = [:]
    var logLevel: Logger.Level = .error

    subscript(metadataKey key: String) -> Logger.Metadata.Value? {
        get { metadata[key] }
        set { metadata[key] = newValue }
    }

    func log(event: LogEvent) {
        guard event.level >= .error else { return }
        RecentProblems.shared.record("\(Self.utcNow()) \(event.level): \(event.message)")
    }

    /// `2026-12-07 12:41:05 UTC`.
    static func utcNow() -> String {
        var now = timespec()
        clock_gettime(CLOCK_REALTIME, &now)
        let seconds = Int64(now.tv_sec)
        let second = CivilTime.date(seconds).secondOfDay
        let two = CivilTime.twoDigits
        return "\(CivilTime.dayText(seconds)) \(two(second / 3600)):\(two(second / 60 % 60)):\(two(second % 60)) UTC"
    }
}
