import JukeboxCore

/// `/settings`, `/login` and `/setup`: forms for every config key, made from the validator's
/// table, and the password that guards them.
extension Pages {
    /// Every key, table by table; a table holding a refused value is open and says why.
    public static func settings(
        _ fields: [SettingsField], token: CSRFToken, message: String? = nil, saved: [SettingsChange] = []
    ) -> String {
        let e = HTMLText.escape
        var html = head("Jukebox settings", token: token) + navigation(current: "/settings")
        html += "<main id=\"settings\">"
        if let message { html += "<p class=\"message\" role=\"alert\">\(e(message))</p>" }
        if !saved.isEmpty {
            html += "<section id=\"changed\"><h2>Changed</h2><ul>"
            for change in saved {
                html +=
                    "<li><code>\(e(change.key))</code> \(e(change.old ?? "(default)")) → \(e(change.new ?? "(default)"))</li>"
            }
            html += "</ul><p>jukeboxd uses them from its next start.</p>" + restartForm(token) + "</section>"
        }
        html +=
            "<p>An empty field uses the default. Each value is checked as <code>jukeboxd --check-config</code> checks it.</p>"
        html += "<form method=\"post\" action=\"/settings\" class=\"settings\">" + tokenField(token)
        var table: String?
        for field in fields {
            if field.table != table {
                if table != nil { html += "</details>" }
                table = field.table
                let open = fields.contains { $0.table == field.table && $0.problem != nil }
                let title = field.table.isEmpty ? "General" : "[\(field.table)]"
                html += "<details\(open ? " open" : "")><summary>\(e(title))</summary>"
            }
            html += settingsField(field)
        }
        if table != nil { html += "</details>" }
        html += "<button>Save</button></form>"
        html += """
            <p><a href="/system">System: version, free space, restart</a></p>\
            <form method="post" action="/logout">\(tokenField(token))<button class="quiet">Sign out</button></form>
            """
        html += "</main><script src=\"/app.js\" defer></script></body></html>"
        return html
    }

    static func settingsField(_ field: SettingsField) -> String {
        let e = HTMLText.escape
        let id = "f-" + field.key.map { $0.isLetter || $0.isNumber ? String($0) : "-" }.joined()
        let problem = field.problem.map { "<span class=\"problem\" id=\"\(id)-problem\">\(e($0))</span>" } ?? ""
        let described = field.problem == nil ? "" : " aria-describedby=\"\(id)-problem\" aria-invalid=\"true\""
        var html = "<div class=\"field\(field.problem == nil ? "" : " refused")\" data-key=\"\(e(field.key))\">"
        html += "<label for=\"\(id)\">\(e(field.name))</label>"
        let name = e(field.formName)
        switch field.kind {
        case .boolean:
            html += select(id: id, name: name, value: field.value, choices: ["true", "false"], extra: described)
        case .choice(let choices):
            html += select(id: id, name: name, value: field.value, choices: choices, extra: described)
        case .integerChoice(let choices):
            html += select(
                id: id, name: name, value: field.value, choices: choices.map { String($0) }, extra: described)
        case .urls, .ruleList:
            html += "<textarea id=\"\(id)\" name=\"\(name)\" rows=\"3\"\(described)>\(e(field.value))</textarea>"
        case .integer, .number:
            html +=
                "<input id=\"\(id)\" name=\"\(name)\" value=\"\(e(field.value))\" inputmode=\"decimal\"\(described)>"
        case .string, .path, .brokerURL:
            html += "<input id=\"\(id)\" name=\"\(name)\" value=\"\(e(field.value))\"\(described)>"
        }
        html += problem
        html += "<small>\(e(ConfigReference.accepts(field.kind)))"
        if !field.description.isEmpty { html += " · " + e(field.description) }
        html += "</small></div>"
        return html
    }

    static func select(id: String, name: String, value: String, choices: [String], extra: String) -> String {
        let e = HTMLText.escape
        var html = "<select id=\"\(id)\" name=\"\(name)\"\(extra)><option value=\"\">(default)</option>"
        var known = false
        for choice in choices {
            known = known || choice == value
            html += "<option\(choice == value ? " selected" : "")>\(e(choice))</option>"
        }
        // A value the file has that is not a choice (a typo): shown, so it can be seen and fixed.
        if !known && !value.isEmpty { html += "<option selected>\(e(value))</option>" }
        return html + "</select>"
    }

    /// The password form; `next` is where it goes after.
    public static func login(token: CSRFToken, next: String, message: String? = nil) -> String {
        let e = HTMLText.escape
        var html = head("Jukebox: sign in", token: token) + navigation(current: "/login")
        html += "<main id=\"login\"><h1>Sign in</h1>"
        if let message { html += "<p class=\"message\" role=\"alert\">\(e(message))</p>" }
        html += """
            <form method="post" action="/login">\(tokenField(token))<input type="hidden" name="next" value="\(e(next))">\
            <label>Password <input type="password" name="password" autocomplete="current-password" required></label>\
            <button>Sign in</button></form></main></body></html>
            """
        return html
    }

    /// The first visit: the setup code from the box's log, and the new password twice.
    public static func setup(token: CSRFToken, next: String, message: String? = nil) -> String {
        let e = HTMLText.escape
        var html = head("Jukebox: set a password", token: token) + navigation(current: "/setup")
        html += "<main id=\"setup\"><h1>Set a password</h1>"
        html += "<p>Settings, cards and uploads need a password. The box wrote a one-time setup code to its log "
        html += "(<code>journalctl -u jukebox-web</code>).</p>"
        if let message { html += "<p class=\"message\" role=\"alert\">\(e(message))</p>" }
        html += """
            <form method="post" action="/setup">\(tokenField(token))<input type="hidden" name="next" value="\(e(next))">\
            <label>Setup code <input name="code" autocomplete="one-time-code" inputmode="numeric" required></label>\
            <label>New password <input type="password" name="password" autocomplete="new-password" required></label>\
            <label>Again <input type="password" name="again" autocomplete="new-password" required></label>\
            <button>Set the password</button></form></main></body></html>
            """
        return html
    }
}
