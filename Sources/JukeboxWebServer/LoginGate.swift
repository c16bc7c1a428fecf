import Hummingbird
import JukeboxWeb
import Logging

/// The web page's password and sessions (`WebLogin`'s policy) with the hash on disk and the
/// process's clock. Hashing runs here, one at a time: yescrypt costs tens of milliseconds on a
/// Pi, and a guesser gets no parallel tries.
actor LoginGate {
    private var login: WebLogin
    private let password: PasswordFile
    private let start = ContinuousClock.now
    private var random = SystemRandomNumberGenerator()

    /// A setup code is made and logged while no password is set.
    init(password: PasswordFile, logger: Logger) {
        var random = SystemRandomNumberGenerator()
        let code = String((0..<6).map { _ in Character(String(random.next(upperBound: 10 as UInt8))) })
        login = WebLogin(passwordIsSet: password.isSet, setupCode: code)
        self.password = password
        if let code = login.setupCode {
            logger.notice("no web page password yet: set one at /setup with the setup code \(code)")
        }
    }

    private var now: Double {
        let elapsed = ContinuousClock.now - start
        return Double(elapsed.components.seconds) + Double(elapsed.components.attoseconds) / 1e18
    }

    var needsSetup: Bool { login.setupCode != nil }

    func isSignedIn(cookie: String?) -> Bool {
        login.isSignedIn(WebLogin.sessionToken(cookieHeader: cookie), at: now)
    }

    /// A new session's token, or what to tell the user.
    func signIn(_ candidate: String) -> Result<String, WebLogin.Refusal> {
        if case .wait(let seconds) = login.gate(at: now) { return .failure(.wait(seconds)) }
        guard password.matches(candidate) else {
            login.failed(at: now)
            return .failure(.wrong("Wrong password."))
        }
        let token = RandomToken.hex(using: &random)
        login.succeeded(at: now, token: token)
        return .success(token)
    }

    /// Sets the password with the setup code; a new session's token, or what to tell the user.
    func setUp(code: String?, password new: String, again: String) -> Result<String, WebLogin.Refusal> {
        if case .wait(let seconds) = login.gate(at: now) { return .failure(.wait(seconds)) }
        guard login.acceptsSetupCode(code) else {
            login.failed(at: now)
            return .failure(.wrong("Wrong setup code: it is in the box's log."))
        }
        if let problem = WebLogin.passwordProblem(new) { return .failure(.wrong(problem)) }
        guard new == again else { return .failure(.wrong("The two passwords differ.")) }
        do {
            try password.set(new)
        } catch {
            return .failure(.wrong("Cannot save the password: \(error)"))
        }
        let token = RandomToken.hex(using: &random)
        login.passwordSet(at: now, token: token)
        return .success(token)
    }

    func signOut(cookie: String?) { login.signOut(WebLogin.sessionToken(cookieHeader: cookie)) }
}

extension LoginGate {
    /// nil when the request is signed in; otherwise the answer: a page goes to the setup
    /// (first visit) or sign-in page and comes back after, a POST is refused.
    func signInFirst(_ request: Request) async -> Response? {
        if isSignedIn(cookie: request.headers[.cookie]) { return nil }
        if request.method == .post { return Routes.text(.unauthorized, "sign in first (/login)") }
        return SettingsRoutes.redirect((needsSetup ? "/setup" : "/login") + "?next=" + request.uri.path)
    }
}
