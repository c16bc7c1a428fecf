import Hummingbird
import JukeboxCore
import JukeboxWeb

/// `/music`: browse and search the library, favourites and recently played, and the form that
/// plays or queues what was picked. Open like the now-playing page (listening needs no
/// password); every POST carries the CSRF token.
struct MusicRoutes: Sendable {
    let client: MPDClient
    let token: CSRFToken

    func add(to router: Router<BasicRequestContext>) {
        router.get("/music") { request, _ in
            let form = FormData(request.uri.query ?? "")
            var page = try await client.musicPage(MusicQuery(query: form))
            page.done = form["done"].flatMap { ["play", "add", "full"].contains($0) ? $0 : nil }
            return Routes.page(Pages.music(page, token: token), status: page.problem == nil ? .ok : .notFound)
        }
        router.post("/music/play") { request, _ in
            var request = request
            let form = FormData(String(buffer: try await request.collectBody(upTo: FormData.maxBytes)))
            guard token.accepts(form["csrf"]) else { return Routes.text(.forbidden, "missing or wrong CSRF token") }
            guard let action = WebAction.music(form) else {
                return Routes.text(.badRequest, "not an action this page knows")
            }
            var done = "play"
            if case .add = action { done = "add" }
            do {
                _ = try await client.run(action.command)
            } catch MPDReplyError.ack(let line) where line.contains("Playlist is too large") {
                // The daemon added what fits ([queue] max_length) and stopped the list there.
                if case .playNow = action { _ = try? await client.run("play 0") }
                done = "full"
            } catch let error as MPDReplyError {
                return Routes.text(.badRequest, "\(error)")
            }
            return Response(status: .seeOther, headers: [.location: Self.back(form, done)])
        }
    }

    /// The page the form came from, saying what was done.
    static func back(_ form: FormData, _ done: String) -> String {
        let back = MusicQuery.safeBack(form["back"])
        return back + (back.contains("?") ? "&" : "?") + "done=" + done
    }
}

extension MPDClient {
    /// The music page for `query`: the folder or search, what plays, and on the start page the
    /// favourites and recently played. A folder or search the daemon refuses is the page's
    /// problem, not an error.
    func musicPage(_ query: MusicQuery) async throws -> MusicPage {
        try await withLink { link in
            var page: MusicPage
            do {
                page = MusicPage(query: query, reply: try await link.run(query.command).fields)
            } catch MPDReplyError.ack(let line) {
                page = MusicPage()
                page.query = query
                page.problem = query.isSearch ? "The search failed: \(line)" : "No such folder: \(query.path)"
            }
            let now = try await link.runList(["status", "currentsong"])
            if now.sections.count >= 2 {
                page.now = NowPlaying(status: now.sections[0], song: now.sections[1])
                page.queueLength = now.value("playlistlength").flatMap { Int($0) } ?? 0
            }
            if page.isStart {
                page.recent = RecentEntry.list(try await link.run("recent").fields)
                do {
                    let favourites = try await link.run(
                        "listplaylistinfo " + MPDReplyReader.quoted(Favourites.playlistName))
                    page.favourites = MusicListing(favourites.fields).songs
                } catch MPDReplyError.ack {
                    // No favourites marked yet: the playlist does not exist.
                }
            }
            return page
        }
    }
}
