/// What jukeboxd's `system` command tells (a local client only): the build, this start, the
/// library, the card's free space, its files and the last problems it logged.
public struct SystemFacts: Sendable, Equatable {
    public var version = ""
    public var build = ""
    public var pid = ""
    /// When this start of the daemon began (wall clock, ms since the epoch): another value
    /// after a restart.
    public var startedMs: Int64?
    public var uptimeSeconds: Int64?
    public var tracks: Int?
    public var musicDir = ""
    public var musicFreeBytes: Int64?
    public var config = ""
    public var database = ""
    /// `systemd` (the unit starts it again) or `exec` (it runs itself again).
    public var restartBy = ""
    /// Oldest first.
    public var problems: [String] = []

    public init() {}

    /// From the reply's lines; unknown keys are left out (a newer daemon may say more).
    public init(_ fields: [MPDField]) {
        for field in fields {
            switch field.key {
            case "version": version = field.value
            case "build": build = field.value
            case "pid": pid = field.value
            case "started_ms": startedMs = Int64(field.value)
            case "uptime": uptimeSeconds = Int64(field.value)
            case "tracks": tracks = Int(field.value)
            case "music_dir": musicDir = field.value
            case "music_free": musicFreeBytes = Int64(field.value)
            case "config": config = field.value
            case "database": database = field.value
            case "restart_by": restartBy = field.value
            case "problem": problems.append(field.value)
            default: break
            }
        }
    }

    /// `3 d 4 h`, `2 h 5 min`, `4 min 12 s`, `12 s`.
    public static func duration(_ seconds: Int64) -> String {
        let s = max(0, seconds)
        let (days, hours, minutes) = (s / 86400, s / 3600 % 24, s / 60 % 60)
        if days > 0 { return "\(days) d \(hours) h" }
        if hours > 0 { return "\(hours) h \(minutes) min" }
        if minutes > 0 { return "\(minutes) min \(s % 60) s" }
        return "\(s) s"
    }

    /// `812 MiB`, `14.6 GiB`.
    public static func size(_ bytes: Int64) -> String {
        let mib = Double(max(0, bytes)) / 1_048_576
        if mib < 1024 { return "\(Int(mib)) MiB" }
        let tenths = Int((mib / 1024 * 10).rounded())
        return "\(tenths / 10).\(tenths % 10) GiB"
    }
}

/// Where a restart is, as `/system/daemon` tells the waiting page: the daemon answered with
/// another start than the one before (`running`), still with the same one (`stopping`: it
/// has not gone yet), or not at all (`down`: stopped, or not listening yet).
public enum RestartProgress: Sendable, Equatable {
    case running(SystemFacts)
    case stopping
    case down(String)

    /// `before`: the start the restart was asked of; nil when that was not known (then any
    /// answer after the daemon was seen down counts, which the page's script keeps track of).
    public static func judge(before: Int64?, answer: Result<SystemFacts, ProbeFailure>) -> RestartProgress {
        switch answer {
        case .failure(let failure): return .down(failure.message)
        case .success(let facts):
            if let before, facts.startedMs == before { return .stopping }
            return .running(facts)
        }
    }

    /// Why the daemon did not answer.
    public struct ProbeFailure: Error, Sendable, Equatable {
        public var message: String
        public init(_ message: String) { self.message = message }
    }

    /// The JSON `/system/daemon` answers: `{"state":"running","pid":"…","version":"…"}`,
    /// `{"state":"stopping"}`, `{"state":"down","error":"…","problems":["…"]}` (`problems`: what
    /// the validator says of the config file now, which keeps jukeboxd from starting).
    public func json(configProblems: [String] = []) -> String {
        let q = JSONText.string
        switch self {
        case .running(let facts):
            return JSONText.object([
                ("state", q("running")), ("pid", q(facts.pid)), ("version", q(facts.version)),
                ("started_ms", String(facts.startedMs ?? 0)),
            ])
        case .stopping: return JSONText.object([("state", q("stopping"))])
        case .down(let error):
            return JSONText.object([
                ("state", q("down")), ("error", q(error)),
                ("problems", "[" + configProblems.map(q).joined(separator: ",") + "]"),
            ])
        }
    }
}

extension Pages {
    /// The button that restarts the daemon (signed in; the CSRF token as every form).
    static func restartForm(_ token: CSRFToken) -> String {
        """
        <form method="post" action="/system/restart" id="restart-form">\(tokenField(token))\
        <button id="restart">Restart the jukebox now</button></form>
        """
    }

    /// `/system`: the daemon's facts and the restart button; `problem` when it does not answer.
    public static func system(_ facts: SystemFacts?, token: CSRFToken, problem: String? = nil) -> String {
        let e = HTMLText.escape
        var html = head("Jukebox: system", token: token) + navigation(current: "/system")
        html += "<main id=\"system\"><h1>System</h1>"
        if let problem { html += "<p class=\"message\" role=\"alert\">\(e(problem))</p>" }
        if let facts {
            var rows: [(String, String, String)] = [
                ("version", "Version", "jukeboxd \(facts.version) (\(facts.build))"),
                ("uptime", "Running for", facts.uptimeSeconds.map(SystemFacts.duration) ?? "unknown"),
                ("tracks", "Library", facts.tracks.map { "\($0) tracks" } ?? "unknown"),
                (
                    "free", "Free on the music card",
                    facts.musicFreeBytes.map { "\(SystemFacts.size($0)) (\(facts.musicDir))" } ?? "unknown"
                ),
                ("config", "Config file", facts.config),
                ("pid", "Process", facts.pid),
            ]
            if facts.restartBy == "systemd" { rows.append(("restart-by", "Restarted by", "systemd")) }
            html += "<dl id=\"facts\">"
            for (id, name, value) in rows { html += "<dt>\(name)</dt><dd id=\"sys-\(id)\">\(e(value))</dd>" }
            html += "</dl><h2>Last problems</h2>"
            if facts.problems.isEmpty {
                html += "<p id=\"problems\">None since it started.</p>"
            } else {
                html += "<ol id=\"problems\">"
                for line in facts.problems.reversed() { html += "<li><code>\(e(line))</code></li>" }
                html += "</ol>"
            }
        }
        html += restartForm(token)
        html += "</main><script src=\"/app.js\" defer></script></body></html>"
        return html
    }

    /// After Restart: the page waits (its script asks `/system/daemon?since=`) until the
    /// daemon answers again from a new start, then says so; without the script, a link to ask.
    public static func restarting(since: Int64?, token: CSRFToken) -> String {
        let since = since.map(String.init) ?? ""
        var html = head("Jukebox: restarting", token: token) + navigation(current: "/system")
        html += """
            <main id="restarting" data-since="\(since)" data-state="waiting"><h1>Restarting</h1>\
            <p id="restart-status" role="status">The jukebox saved its place and is starting again…</p>\
            <pre id="restart-log" hidden></pre>\
            <p><a href="/system">Look at the system page</a></p>\
            </main><script src="/app.js" defer></script></body></html>
            """
        return html
    }
}
