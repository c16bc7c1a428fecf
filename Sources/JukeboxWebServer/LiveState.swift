import JukeboxWeb
import Logging

/// The state every page follows: the idle loop keeps it, each `/events` stream gets its
/// changes as Server-Sent Events.
actor LiveState {
    private var now = NowPlaying()
    /// When `now` was read: a late subscriber gets the position moved on by the time since.
    private var readAt = ContinuousClock.now
    private var subscribers: [Int: AsyncStream<String>.Continuation] = [:]
    private var nextID = 0

    /// The current state, and a stream of the events that follow, starting with it.
    func subscribe() -> (id: Int, events: AsyncStream<String>, end: AsyncStream<String>.Continuation) {
        let (stream, continuation) = AsyncStream.makeStream(of: String.self, bufferingPolicy: .bufferingNewest(8))
        nextID += 1
        subscribers[nextID] = continuation
        var moved = now
        if moved.state == "play" {
            let since = ContinuousClock.now - readAt
            moved.elapsed += Double(since.components.seconds) + Double(since.components.attoseconds) * 1e-18
        }
        continuation.yield(Pages.event("state", data: moved.json))
        return (nextID, stream, continuation)
    }

    func unsubscribe(_ id: Int) {
        subscribers[id]?.finish()
        subscribers[id] = nil
    }

    var current: NowPlaying { now }

    /// A new state: sent when it differs from the last one.
    func publish(_ state: NowPlaying) {
        readAt = ContinuousClock.now
        guard state != now else { return }
        now = state
        send(Pages.event("state", data: state.json))
    }

    /// The lyric line of `file` moved on: only the line is sent (the position the page
    /// counts from stays the one `status` gave).
    func publishLyric(of file: String, _ lyric: String, next: String) {
        guard file == now.file, lyric != now.lyric || next != now.nextLyric else { return }
        now.lyric = lyric
        now.nextLyric = next
        send(
            Pages.event(
                "lyric", data: JSONText.object([("lyric", JSONText.string(lyric)), ("next", JSONText.string(next))])))
    }

    /// The cards changed (a new card read, an assignment): the cards page reloads its list.
    func cardsChanged() {
        send(Pages.event("cards", data: "{}"))
    }

    private func send(_ event: String) {
        for continuation in subscribers.values { continuation.yield(event) }
    }
}

/// Follows the daemon with `idle` and feeds `LiveState`; reconnects when the daemon restarts
/// (the web page shows the last state meanwhile; the music does not depend on this process).
struct IdleLoop {
    let client: MPDClient
    let state: LiveState
    let logger: Logger

    func run() async {
        var failures = 0
        while !Task.isCancelled {
            do {
                try await client.withLink { link in
                    await state.publish(try await MPDClient.nowPlaying(&link))
                    await state.cardsChanged()  // the daemon may have restarted: read them again
                    failures = 0
                    while !Task.isCancelled {
                        let reply = try await link.run("idle player mixer playlist options database cards")
                        let changed = Set(reply.fields.filter { $0.key == "changed" }.map(\.value))
                        if changed.contains("cards") { await state.cardsChanged() }
                        if !changed.subtracting(["cards"]).isEmpty {
                            await state.publish(try await MPDClient.nowPlaying(&link))
                        }
                    }
                }
            } catch {
                failures += 1
                if failures == 1 { logger.warning("jukeboxd at \(client.endpoint): \(error); retrying") }
            }
            try? await Task.sleep(for: .seconds(min(failures, 5)))
        }
    }
}

/// The lyric line moves with the music but raises no idle event: while a song with lyrics
/// plays, it is read again twice a second.
struct LyricTicker {
    let client: MPDClient
    let state: LiveState

    func run() async {
        while !Task.isCancelled {
            try? await Task.sleep(for: .milliseconds(500))
            var now = await state.current
            guard now.state == "play", !now.lyric.isEmpty || !now.nextLyric.isEmpty else { continue }
            do {
                try await client.withLink { link in try await MPDClient.lyrics(&link, into: &now) }
                await state.publishLyric(of: now.file, now.lyric, next: now.nextLyric)
            } catch {
                continue
            }
        }
    }
}
