import Hummingbird
import JukeboxWeb
import NIOCore

/// `/system` and the restart: the daemon's facts (its `system` command, which it answers only
/// to a client on the box, as jukebox-web is), the Restart button, and `/system/daemon`, which
/// the waiting page asks until the daemon answers from a new start. Signed in only.
struct SystemRoutes: Sendable {
    let client: MPDClient
    let settings: SettingsRoutes

    var gate: LoginGate { settings.gate }
    var token: CSRFToken { settings.token }

    func add(to router: Router<BasicRequestContext>) {
        router.get("/system") { request, _ in
            if let away = await gate.signInFirst(request) { return away }
            do {
                return Routes.page(Pages.system(try await client.systemFacts(), token: token))
            } catch {
                return Routes.page(
                    Pages.system(nil, token: token, problem: "jukeboxd does not answer: \(error)"),
                    status: .serviceUnavailable)
            }
        }
        router.post("/system/restart") { request, _ in
            if let away = await gate.signInFirst(request) { return away }
            let form = try await SettingsRoutes.form(request)
            guard token.accepts(form["csrf"]) else { return Routes.text(.forbidden, "missing or wrong CSRF token") }
            let before = try? await client.systemFacts()
            do {
                _ = try await client.run("restart")
            } catch {
                return Routes.page(
                    Pages.system(before, token: token, problem: "Not restarted: \(error)"), status: .badGateway)
            }
            return Routes.page(Pages.restarting(since: before?.startedMs, token: token))
        }
        router.get("/system/daemon") { request, _ in
            if let away = await gate.signInFirst(request) { return away }
            let since = FormData(request.uri.query ?? "")["since"].flatMap { Int64($0) }
            let answer: Result<SystemFacts, RestartProgress.ProbeFailure>
            do {
                answer = .success(try await client.systemFacts())
            } catch {
                answer = .failure(.init("\(error)"))
            }
            let progress = RestartProgress.judge(before: since, answer: answer)
            var problems: [String] = []
            if case .down = progress, let config = try? settings.readConfig() {
                problems = SettingsRoutes.validate(config.text, fileName: settings.configPath).map(\.description)
            }
            return Response(
                status: .ok,
                headers: [.contentType: "application/json", .cacheControl: "no-store"],
                body: .init(byteBuffer: ByteBuffer(string: progress.json(configProblems: problems))))
        }
    }
}
