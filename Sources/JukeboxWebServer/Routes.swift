import Hummingbird
import JukeboxWeb
import LinuxSupport
import Logging
import NIOCore
import ServiceLifecycle

/// The pages and what they post. State-changing requests are POSTs carrying the CSRF token;
/// forms work without the script (a redirect back), the script posts them with fetch.
struct Routes: Sendable {
    let client: MPDClient
    let state: LiveState
    let token: CSRFToken
    let logger: Logger
    let settings: SettingsRoutes
    let upload: UploadRoutes
    let system: SystemRoutes
    let music: MusicRoutes

    /// No inline script or style, nothing from elsewhere: an escaping slip still runs nothing.
    static let contentPolicy =
        "default-src 'self'; img-src 'self'; style-src 'self'; script-src 'self'; frame-ancestors 'none'"

    func router() -> Router<BasicRequestContext> {
        let router = Router()
        router.get("/") { _, _ in
            var now = try? await client.nowPlaying()
            if now == nil { now = await state.current }
            return Self.page(Pages.nowPlaying(now ?? NowPlaying(), token: token))
        }
        // Cards change what the box plays for a child: signed in only. Now playing stays open.
        router.get("/cards") { request, _ in
            if let away = await settings.gate.signInFirst(request) { return away }
            let now = WallClock.local()
            return Self.page(
                Pages.cards(
                    try await client.cardList(), token: token, now: now.utcSeconds,
                    utcOffsetSeconds: now.utcOffsetSeconds))
        }
        router.get("/app.css") { _, _ in Self.asset(Assets.css, type: "text/css; charset=utf-8") }
        router.get("/app.js") { _, _ in Self.asset(Assets.javascript, type: "text/javascript; charset=utf-8") }
        router.get("/events") { _, _ in events() }
        router.get("/cover") { request, _ in try await cover(request) }
        router.post("/action") { request, _ in
            try await perform(request, back: "/") { WebAction.player($0) }
        }
        router.post("/cards/assign") { request, _ in
            if let away = await settings.gate.signInFirst(request) { return away }
            return try await perform(request, back: "/cards") { WebAction.assign($0) }
        }
        router.post("/cards/name") { request, _ in
            if let away = await settings.gate.signInFirst(request) { return away }
            return try await perform(
                request, back: "/cards",
                checked: { form in
                    WebAction.name(form).map { $0.mapError { FormRefusal(message: $0.message) } }
                        ?? .failure(FormRefusal(message: Self.unknownAction))
                })
        }
        router.post("/cards/forget") { request, _ in
            if let away = await settings.gate.signInFirst(request) { return away }
            return try await perform(request, back: "/cards") { WebAction.forget($0) }
        }
        settings.add(to: router)
        upload.add(to: router)
        system.add(to: router)
        music.add(to: router)
        return router
    }

    static func page(_ html: String, status: HTTPResponse.Status = .ok) -> Response {
        Response(
            status: status,
            headers: [
                .contentType: "text/html; charset=utf-8", .cacheControl: "no-store",
                .contentSecurityPolicy: contentPolicy, .init("X-Content-Type-Options")!: "nosniff",
            ],
            body: .init(byteBuffer: ByteBuffer(string: html)))
    }

    static func asset(_ text: String, type: String) -> Response {
        Response(
            status: .ok, headers: [.contentType: type, .cacheControl: "max-age=300"],
            body: .init(byteBuffer: ByteBuffer(string: text)))
    }

    static func text(_ status: HTTPResponse.Status, _ message: String) -> Response {
        Response(
            status: status, headers: [.contentType: "text/plain; charset=utf-8"],
            body: .init(byteBuffer: ByteBuffer(string: message + "\n")))
    }

    static let unknownAction = "not an action this page knows"

    /// Why a form is refused: its text is the 400's body.
    struct FormRefusal: Error {
        var message: String
    }

    /// Runs the action a form asks for: 403 without the token, 400 for a bad form or a
    /// refused command; then 204 for the script, or a redirect back for a plain form.
    func perform(_ request: Request, back: String, _ action: (FormData) -> WebAction?) async throws -> Response {
        try await perform(
            request, back: back,
            checked: { action($0).map { .success($0) } ?? .failure(FormRefusal(message: Self.unknownAction)) })
    }

    /// The same, for a form whose refusal says what is wrong with it (400 with that text).
    func perform(
        _ request: Request, back: String, checked check: (FormData) -> Result<WebAction, FormRefusal>
    ) async throws -> Response {
        var request = request
        let body = try await request.collectBody(upTo: FormData.maxBytes)
        let form = FormData(String(buffer: body))
        guard token.accepts(form["csrf"]) else { return Self.text(.forbidden, "missing or wrong CSRF token") }
        let action: WebAction
        switch check(form) {
        case .success(let checked): action = checked
        case .failure(let refusal): return Self.text(.badRequest, refusal.message)
        }
        do {
            _ = try await client.run(action.command)
        } catch let error as MPDReplyError {
            return Self.text(.badRequest, "\(error)")
        }
        // The script says so in a header of its own (a plain form cannot set one).
        if request.headers[.init("X-Jukebox")!] != nil { return Response(status: .noContent) }
        return Response(status: .seeOther, headers: [.location: back])
    }

    /// `/events`: the state now, then every change, as Server-Sent Events.
    func events() -> Response {
        let state = state
        return Response(
            status: .ok,
            headers: [.contentType: "text/event-stream", .cacheControl: "no-store"],
            body: .init { writer in
                let (id, events, end) = await state.subscribe()
                do {
                    // A stream ends when the browser goes away (the next write fails) or at
                    // SIGTERM (the server's graceful shutdown waits for every response).
                    try await withGracefulShutdownHandler {
                        for await event in events { try await writer.write(ByteBuffer(string: event)) }
                    } onGracefulShutdown: {
                        end.finish()
                    }
                } catch {
                    await state.unsubscribe(id)
                    throw error
                }
                await state.unsubscribe(id)
                try await writer.finish(nil)
            })
    }

    /// `/cover?file=URI`: the song's picture from the daemon, 404 when it has none.
    func cover(_ request: Request) async throws -> Response {
        let query = FormData(request.uri.query ?? "")
        guard let file = query["file"], !file.isEmpty else { return Self.text(.badRequest, "no file") }
        guard let picture = try await client.cover(file) else { return Self.text(.notFound, "no picture") }
        return Response(
            status: .ok,
            headers: [
                .contentType: picture.type ?? "application/octet-stream", .cacheControl: "max-age=3600",
                .init("X-Content-Type-Options")!: "nosniff",
            ],
            body: .init(byteBuffer: ByteBuffer(bytes: picture.bytes)))
    }
}
