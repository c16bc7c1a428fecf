import Glibc
import JukeboxCore
import LinuxSupport
import Logging
import Speech

/// The daemon's end of its speech helper (`jukeboxd --speech-helper`, `SpeechHelperChild`):
/// started on the first request and kept for the next ones. When it dies (a signal, an exit,
/// a garbled reply, or no reply by `replyDeadlineSeconds`, then it is killed) the request
/// fails with a SpeechError that says so, the child is reaped, and the next request starts a
/// new one. Used by one thread at a time: jb-speech, then the control thread's `stop` after
/// jb-speech was joined. The daemon ignores SIGPIPE, so a dead helper's pipe fails a write
/// with EPIPE.
final class SpeechHelperProcess {
    /// How long a reply may take: espeak-ng makes a minute of speech (the most a request asks
    /// for) in well under that even on a Pi Zero; a helper that takes longer is stuck.
    static let replyDeadlineSeconds = 60
    /// How long a helper may take to end after its input was closed, at shutdown.
    static let exitDeadlineMilliseconds: Int32 = 2000
    static let restarting = "it starts again for the next announcement"

    private let logger: Logger
    private var child: SpawnedChild?
    /// What came from the helper and was not yet a whole reply.
    private var pending: [UInt8] = []

    init(logger: Logger) { self.logger = logger }

    /// `request` spoken by the helper, started if none runs.
    func speak(_ request: SpeechHelperFrames.Request) throws(SpeechError) -> SpeechHelperFrames.Reply {
        let frame: [UInt8]
        do {
            frame = try SpeechHelperFrames.encode(request)
        } catch {
            throw SpeechError(error.message)
        }
        if let child, let exit = reap(child.pid, block: false) {
            // Ended between requests (killed, or out of memory): nothing was lost, start another.
            logger.notice(
                "speech: the speech helper (pid \(child.pid)) had ended (\(exit.termination)); starting a new one")
            self.child = nil
        }
        let running = try started()
        guard let input = running.stdin, let output = running.stdout else { preconditionFailure("no pipes") }
        do {
            try input.writeAll(frame)
        } catch {
            throw end("died (\(termination(of: running))) before it took the text")
        }
        logger.debug("speech: the text went to the speech helper (pid \(running.pid))")
        let deadline = Self.now() + Int64(Self.replyDeadlineSeconds) * 1_000_000_000
        var chunk = [UInt8](repeating: 0, count: 65536)
        while true {
            switch SpeechHelperFrames.decodeReply(pending[...], maxSeconds: request.maxSeconds) {
            case .frame(let reply, let length):
                pending.removeFirst(length)
                return reply
            case .garbled(let why):
                throw end("sent a garbled reply (\(why)) and was stopped")
            case .incomplete:
                break
            }
            let left = deadline - Self.now()
            let ready =
                left > 0
                ? (try? Poller.wait(
                    [Poller.Interest(fd: output.rawValue)], timeoutMilliseconds: Int32(left / 1_000_000 + 1)))
                    ?? [] : []
            guard !ready.isEmpty else {
                if Self.now() < deadline { continue }  // interrupted
                throw end("gave no reply in \(Self.replyDeadlineSeconds) s and was stopped")
            }
            let count = chunk.withUnsafeMutableBytes { raw in
                (try? output.read(into: raw.baseAddress!, count: raw.count)) ?? 0
            }
            guard count > 0 else { throw end("died (\(termination(of: running))) while speaking") }
            pending += chunk[..<count]
        }
    }

    /// Ends the helper at shutdown: its input closed (it exits), killed if it does not by
    /// `exitDeadlineMilliseconds`, and reaped.
    func stop() {
        guard var running = child else { return }
        running.stdin = nil  // the only reference: closes the pipe
        if let output = running.stdout {
            let deadline = Self.now() + Int64(Self.exitDeadlineMilliseconds) * 1_000_000
            var chunk = [UInt8](repeating: 0, count: 4096)
            while Self.now() < deadline {
                let left = Int32((deadline - Self.now()) / 1_000_000 + 1)
                let ready = (try? Poller.wait([Poller.Interest(fd: output.rawValue)], timeoutMilliseconds: left)) ?? []
                if ready.isEmpty { continue }
                let count = chunk.withUnsafeMutableBytes { raw in
                    (try? output.read(into: raw.baseAddress!, count: raw.count)) ?? 0
                }
                if count == 0 { break }  // its end: it exited
            }
        }
        _ = kill(running.pid, SIGKILL)  // no effect on one that ended
        _ = reap(running.pid)
        child = nil
        pending = []
    }

    private static func now() -> Int64 { Int64(MonotonicClock.nanoseconds()) }

    /// The running helper, or a new one.
    private func started() throws(SpeechError) -> SpawnedChild {
        if let child { return child }
        do {
            // Without Swift's backtracer: a fault in espeak-ng ends the helper at once (the daemon
            // logs its signal), not after seconds of symbolicating into the daemon's log, and a
            // SIGSEGV sent to it ends it too (the backtracer's handler returns from one).
            let spawned = try spawnChild(
                ["/proc/self/exe", SpeechHelperChild.argument], stdin: .pipe, stdout: .pipe, stderr: .inherit,
                environment: ["SWIFT_BACKTRACE": "enable=no"])
            child = spawned
            pending = []
            return spawned
        } catch {
            throw SpeechError("speech helper could not start: \(error)")
        }
    }

    /// How the helper ended: it is killed (if it still runs) and reaped.
    private func termination(of running: SpawnedChild) -> String {
        _ = kill(running.pid, SIGKILL)
        let exit = reap(running.pid)
        child = nil
        pending = []
        return exit.map { "\($0.termination)" } ?? "not known"
    }

    /// The failure of a request whose helper is gone (`what` it did), after making sure it is.
    private func end(_ what: String) -> SpeechError {
        if let running = child { _ = termination(of: running) }
        return SpeechError("speech helper \(what); \(Self.restarting)")
    }
}
