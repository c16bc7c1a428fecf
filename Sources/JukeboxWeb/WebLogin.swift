/// Who may change the box from the web page (settings, cards, upload, power): one password,
/// set on the first visit with a one-time setup code the box logs, then sessions by cookie.
/// Wrong passwords are slowed: after `freeAttempts` the next try waits, doubling up to
/// `longestWait`, for everyone (a home network has few honest users and a guesser may use
/// many addresses). Times are seconds on a monotonic clock, given by the caller.
public struct WebLogin: Sendable {
    public static let freeAttempts = 3
    public static let longestWait = 60.0
    public static let sessionSeconds = 30.0 * 24 * 3600
    public static let maxSessions = 32

    /// The setup code while no password is set.
    public private(set) var setupCode: String?
    private var failures = 0
    private var notBefore = 0.0
    /// Session token → when it ends; the oldest goes when there are `maxSessions`.
    private var sessions: [String: Double] = [:]

    public init(passwordIsSet: Bool, setupCode: String) {
        self.setupCode = passwordIsSet ? nil : setupCode
    }

    /// What an attempt may do now.
    public enum Gate: Equatable, Sendable {
        case open
        /// Refused without checking: try again in this many seconds.
        case wait(Double)
    }

    public func gate(at now: Double) -> Gate { now >= notBefore ? .open : .wait(notBefore - now) }

    /// A wrong password or setup code: the next attempt waits once the free ones are used.
    public mutating func failed(at now: Double) {
        failures += 1
        guard failures >= Self.freeAttempts else { return }
        let doublings = min(failures - Self.freeAttempts, 16)
        notBefore = now + min(Self.longestWait, Double(1 << doublings))
    }

    /// A right password: a new session with `token` (from the system's random source).
    public mutating func succeeded(at now: Double, token: String) {
        failures = 0
        notBefore = 0
        sessions = sessions.filter { $0.value > now }
        if sessions.count >= Self.maxSessions, let oldest = sessions.min(by: { $0.value < $1.value })?.key {
            sessions[oldest] = nil
        }
        sessions[token] = now + Self.sessionSeconds
    }

    /// The password was set with the setup code: the code is spent.
    public mutating func passwordSet(at now: Double, token: String) {
        setupCode = nil
        succeeded(at: now, token: token)
    }

    /// Whether `setupCode` is the code (constant time).
    public func acceptsSetupCode(_ candidate: String?) -> Bool {
        guard let setupCode, let candidate else { return false }
        return SecretText.equal(setupCode, candidate)
    }

    public func isSignedIn(_ token: String?, at now: Double) -> Bool {
        guard let token, let end = sessions[token] else { return false }
        return end > now
    }

    public mutating func signOut(_ token: String?) {
        if let token { sessions[token] = nil }
    }

    /// The session cookie's value in a `Cookie` header, if any.
    public static func sessionToken(cookieHeader: String?) -> String? {
        guard let cookieHeader else { return nil }
        for part in cookieHeader.split(separator: ";") {
            let pair = part.split(separator: "=", maxSplits: 1)
            if pair.count == 2, pair[0].trimmingSpaces == cookieName { return String(pair[1].trimmingSpaces) }
        }
        return nil
    }

    public static let cookieName = "jukebox_session"

    /// A password a family can type on a phone and a guesser cannot find in a list's first page.
    public static func passwordProblem(_ password: String) -> String? {
        password.count < 8 ? "The password needs at least 8 characters." : nil
    }

    /// Why a sign-in or setup was refused.
    public enum Refusal: Error, Equatable, Sendable {
        /// Too many wrong tries: this many seconds to wait.
        case wait(Double)
        case wrong(String)

        public var isWait: Bool { if case .wait = self { true } else { false } }

        public var message: String {
            switch self {
            case .wait(let seconds): "Too many wrong tries: wait \(Int(seconds.rounded(.up))) s, then try again."
            case .wrong(let text): text
            }
        }
    }
}

extension Substring {
    fileprivate var trimmingSpaces: Substring {
        var text = self
        while text.first == " " { text.removeFirst() }
        while text.last == " " { text.removeLast() }
        return text
    }
}
