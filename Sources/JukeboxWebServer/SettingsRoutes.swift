import Hummingbird
import JukeboxConfigFile
import JukeboxCore
import JukeboxWeb
import LinuxSupport
import NIOCore
import TOML

/// `/settings`, `/login`, `/setup`, `/logout`: the signed-in part of the page.
struct SettingsRoutes: Sendable {
    let configPath: String
    let gate: LoginGate
    let token: CSRFToken

    func add(to router: Router<BasicRequestContext>) {
        router.get("/login") { request, _ in
            if await gate.needsSetup { return Self.redirect("/setup?next=" + Self.next(request)) }
            return Routes.page(Pages.login(token: token, next: Self.next(request)))
        }
        router.post("/login") { request, _ in
            let form = try await Self.form(request)
            guard token.accepts(form["csrf"]) else { return Routes.text(.forbidden, "missing or wrong CSRF token") }
            let next = Self.safeNext(form["next"])
            switch await gate.signIn(form["password"] ?? "") {
            case .success(let session): return Self.signedIn(session, next: next)
            case .failure(let refusal):
                return Self.refused(Pages.login(token: token, next: next, message: refusal.message), refusal)
            }
        }
        router.get("/setup") { request, _ in
            guard await gate.needsSetup else { return Self.redirect("/login?next=" + Self.next(request)) }
            return Routes.page(Pages.setup(token: token, next: Self.next(request)))
        }
        router.post("/setup") { request, _ in
            let form = try await Self.form(request)
            guard token.accepts(form["csrf"]) else { return Routes.text(.forbidden, "missing or wrong CSRF token") }
            let next = Self.safeNext(form["next"])
            guard await gate.needsSetup else { return Self.redirect("/login?next=" + next) }
            switch await gate.setUp(
                code: form["code"], password: form["password"] ?? "", again: form["again"] ?? "")
            {
            case .success(let session): return Self.signedIn(session, next: next)
            case .failure(let refusal):
                return Self.refused(Pages.setup(token: token, next: next, message: refusal.message), refusal)
            }
        }
        router.post("/logout") { request, _ in
            let form = try await Self.form(request)
            guard token.accepts(form["csrf"]) else { return Routes.text(.forbidden, "missing or wrong CSRF token") }
            await gate.signOut(cookie: request.headers[.cookie])
            var response = Self.redirect("/")
            response.headers[.setCookie] = "\(WebLogin.cookieName)=; Path=/; Max-Age=0; HttpOnly; SameSite=Strict"
            return response
        }
        router.get("/settings") { request, _ in
            if let away = await gate.signInFirst(request) { return away }
            return try settingsPage { fields in Pages.settings(fields, token: token) }
        }
        router.post("/settings") { request, _ in
            if let away = await gate.signInFirst(request) { return away }
            let form = try await Self.form(request)
            guard token.accepts(form["csrf"]) else { return Routes.text(.forbidden, "missing or wrong CSRF token") }
            return try save(form)
        }
    }

    /// The config file's text and parsed form.
    func readConfig() throws -> (text: String, document: ConfigDocument) {
        let bytes = try readWholeFile(configPath, limit: 1 << 20)
        guard let text = String(validating: bytes, as: UTF8.self) else {
            throw SettingsFile.EditProblem(description: "\(configPath): not UTF-8 text")
        }
        switch TOMLParser.parse(text, fileName: configPath) {
        case .success(let document): return (text, document)
        case .failure(let error):
            throw SettingsFile.EditProblem(description: error.diagnostic(fileName: configPath).description)
        }
    }

    func settingsPage(_ render: ([SettingsField]) -> String) throws -> Response {
        do {
            let (text, document) = try readConfig()
            return Routes.page(render(SettingsFile.fields(of: document, text: text)))
        } catch {
            return Routes.page(Pages.settings([], token: token, message: "Cannot read the settings: \(error)"))
        }
    }

    /// Writes what the form changed if the validator takes the result, keeping the previous
    /// file as `NAME.previous`; otherwise the form again, with the posted values and the
    /// validator's messages beside them. Nothing is written unless everything is valid.
    func save(_ form: FormData) throws -> Response {
        let (text, document) = try readConfig()
        var fields = SettingsFile.fields(of: document, text: text)
        let changes = SettingsFile.changes(posted: { form[$0] }, fields: fields)
        guard !changes.isEmpty else {
            return Routes.page(Pages.settings(fields, token: token, message: "Nothing changed."))
        }
        var kinds: [String: ConfigValidator.Kind] = [:]
        for field in fields { kinds[field.key] = field.kind }
        // What the user typed stays in the form, whatever happens next.
        for index in fields.indices {
            if let change = changes.first(where: { $0.key == fields[index].key }) {
                fields[index].value = change.new ?? ""
            }
        }
        let edited: String
        switch SettingsFile.edit(text, fileName: configPath, changes: changes, kinds: kinds) {
        case .success(let result): edited = result
        case .failure(let problem):
            return Routes.page(Pages.settings(fields, token: token, message: problem.description), status: .badRequest)
        }
        let diagnostics = Self.validate(edited, fileName: configPath)
        guard diagnostics.isEmpty else {
            var unplaced: [String] = []
            for diagnostic in diagnostics {
                if let index = fields.firstIndex(where: { $0.key == diagnostic.key }) {
                    fields[index].problem = diagnostic.problem
                } else {
                    unplaced.append(diagnostic.description)
                }
            }
            let message = (["Not saved: the settings below say why."] + unplaced).joined(separator: " ")
            return Routes.page(Pages.settings(fields, token: token, message: message), status: .badRequest)
        }
        do {
            try FileSystem.writeAtomically(Array(text.utf8), to: configPath + ".previous")
            try FileSystem.writeAtomically(Array(edited.utf8), to: configPath)
        } catch {
            return Routes.page(
                Pages.settings(fields, token: token, message: "Not saved: \(error)"), status: .internalServerError)
        }
        return try settingsPage { fields in Pages.settings(fields, token: token, saved: changes) }
    }

    /// The validator's messages for a config text, as `jukeboxd --check-config` gives them.
    static func validate(_ text: String, fileName: String) -> [ConfigDiagnostic] {
        switch TOMLParser.parse(text, fileName: fileName) {
        case .failure(let error): return [error.diagnostic(fileName: fileName)]
        case .success(let document):
            let base = DaemonConfig.directory(of: fileName)
            return ConfigValidator.validate(document) { raw in
                DaemonConfig.directoryProblem(DaemonConfig.resolve(raw, against: base))
            }.diagnostics
        }
    }

    static func form(_ request: Request) async throws -> FormData {
        var request = request
        return FormData(String(buffer: try await request.collectBody(upTo: FormData.maxBytes)))
    }

    /// `next` from the query: a path on this site only.
    static func next(_ request: Request) -> String { safeNext(FormData(request.uri.query ?? "")["next"]) }

    static func safeNext(_ next: String?) -> String {
        guard let next, next.hasPrefix("/"), !next.hasPrefix("//"), !next.contains("\\") else { return "/settings" }
        return next
    }

    static func redirect(_ location: String) -> Response { Response(status: .seeOther, headers: [.location: location]) }

    static func signedIn(_ session: String, next: String) -> Response {
        var response = redirect(next)
        response.headers[.setCookie] = "\(WebLogin.cookieName)=\(session); Path=/; HttpOnly; SameSite=Strict"
        return response
    }

    static func refused(_ html: String, _ refusal: WebLogin.Refusal) -> Response {
        var response = Routes.page(html, status: refusal.isWait ? .tooManyRequests : .unauthorized)
        if case .wait(let seconds) = refusal { response.headers[.retryAfter] = String(Int(seconds.rounded(.up))) }
        return response
    }
}
