import JukeboxCore

/// The pages, rendered on the server with every tag and name escaped; the scripts keep them
/// current from the `/events` stream (setting `textContent`, never HTML).
public enum Pages {
    static func head(_ title: String, token: CSRFToken) -> String {
        """
        <!doctype html><html lang="en"><head><meta charset="utf-8">\
        <meta name="viewport" content="width=device-width,initial-scale=1">\
        <meta name="color-scheme" content="light dark"><meta name="csrf" content="\(HTMLText.escape(token.value))">\
        <title>\(HTMLText.escape(title))</title><link rel="stylesheet" href="/app.css"></head><body>
        """
    }

    static func navigation(current: String) -> String {
        let links = [
            ("/", "Now playing"), ("/music", "Music"), ("/cards", "Cards"), ("/upload", "Add music"),
            ("/settings", "Settings"), ("/system", "System"),
        ].map { path, name in
            "<a href=\"\(path)\"\(path == current ? " aria-current=\"page\"" : "")>\(name)</a>"
        }
        return "<nav>" + links.joined() + "</nav>"
    }

    /// A hidden field with the CSRF token, in every form.
    static func tokenField(_ token: CSRFToken) -> String {
        "<input type=\"hidden\" name=\"csrf\" value=\"\(HTMLText.escape(token.value))\">"
    }

    /// A button that posts one player action (works without the script: the server answers
    /// with a redirect back to the page).
    static func actionButton(_ op: String, value: String = "", label: String, text: String, token: CSRFToken)
        -> String
    {
        """
        <form method="post" action="/action" data-fetch>\(tokenField(token))<input type="hidden" name="op" value="\(op)">\
        <input type="hidden" name="value" value="\(HTMLText.escape(value))">\
        <button aria-label="\(label)" title="\(label)" data-op="\(op)">\(text)</button></form>
        """
    }

    /// `/`: what plays, the controls and the queue.
    public static func nowPlaying(_ now: NowPlaying, token: CSRFToken) -> String {
        let e = HTMLText.escape
        var html = head("Jukebox", token: token) + navigation(current: "/")
        html += "<main id=\"now\" data-state=\"\(e(now.state))\">"
        let cover = now.file.isEmpty ? "" : e(NowPlaying.coverPath(now.file))
        html += "<img id=\"cover\" alt=\"\" src=\"\(cover)\"\(cover.isEmpty ? " hidden" : "")>"
        html += "<h1 id=\"title\">\(e(now.title.isEmpty ? "Nothing playing" : now.title))</h1>"
        html += "<p id=\"artist\">\(e(now.artist))</p>"
        html += "<p id=\"lyric\" class=\"lyric\">\(e(now.lyric))</p>"
        html += """
            <div class="progress"><span id="elapsed">\(NowPlaying.clock(now.elapsed))</span>\
            <input id="seek" type="range" aria-label="Position" min="0" max="\(Int(now.duration))" \
            value="\(Int(now.elapsed))"><span id="duration">\(NowPlaying.clock(now.duration))</span></div>
            """
        html += "<div class=\"controls\">"
        html += actionButton("previous", label: "Previous", text: "⏮", token: token)
        html += actionButton(now.state == "play" ? "pause" : "play", label: "Play or pause", text: "⏯", token: token)
        html += actionButton("next", label: "Next", text: "⏭", token: token)
        html += "</div>"
        html += """
            <label class="volume">Volume <input id="volume" type="range" min="0" max="100" \
            value="\(now.volume ?? 0)"\(now.volume == nil ? " disabled" : "")></label>
            """
        html += "<h2>Queue</h2><ol id=\"queue\" start=\"\(now.queueFrom + 1)\">"
        for entry in now.queue {
            html += queueEntry(entry, current: entry.id == now.songID, token: token)
        }
        html +=
            "</ol><p id=\"queue-elsewhere\">\(e(now.queueElsewhere))</p></main><script src=\"/app.js\" defer></script></body></html>"
        return html
    }

    static func queueEntry(_ entry: NowPlaying.Entry, current: Bool, token: CSRFToken) -> String {
        let e = HTMLText.escape
        let artist = entry.artist.isEmpty ? "" : "<small>\(e(entry.artist))</small>"
        return """
            <li data-id="\(entry.id)"\(current ? " class=\"current\"" : "")>\
            <form method="post" action="/action" data-fetch class="grow">\(tokenField(token))\
            <input type="hidden" name="op" value="playid"><input type="hidden" name="value" value="\(entry.id)">\
            <button class="entry"><span>\(e(entry.title))</span>\(artist)</button></form>\
            \(actionButton("remove", value: String(entry.id), label: "Remove", text: "✕", token: token))</li>
            """
    }

    /// `/cards`: the new card waiting to be assigned, then every card (in `CardList`'s order)
    /// with its name, what it plays, its policy, its place and when it was last used, as seen
    /// at `now` (the box's local time: `utcOffsetSeconds`).
    public static func cards(
        _ list: CardList, token: CSRFToken, now: Int64, utcOffsetSeconds: Int64, message: String? = nil
    ) -> String {
        let e = HTMLText.escape
        var html = head("Jukebox cards", token: token) + navigation(current: "/cards")
        html += "<main id=\"cards\">"
        if let message { html += "<p class=\"message\" role=\"alert\">\(e(message))</p>" }
        if let unknown = list.unknown {
            html += "<section id=\"unknown\" data-card=\"\(e(unknown))\"><h2>New card <code>\(e(unknown))</code></h2>"
            html += "<p>It was just put on the reader. Choose the folder it plays:</p>"
            html += assignForm(card: unknown, folders: list.folders, token: token) + "</section>"
        }
        html += "<h2>Cards</h2>"
        if list.cards.isEmpty { html += "<p>No cards yet: put one on the reader.</p>" }
        html += "<ul id=\"card-list\">"
        for card in list.cards {
            let name = card.name.isEmpty ? "<em>unnamed</em>" : e(card.name)
            html += "<li data-card=\"\(e(card.id))\"><div class=\"grow\"><strong class=\"name\">\(name)</strong>"
            html += "<small class=\"id\">card \(e(card.id))</small>"
            html += "<span class=\"plays\">plays \(e(card.plays))</span>"
            if !card.policy.isEmpty {
                html += "<small>\(e(card.policy == "continue" ? "continues" : "from the start"))</small>"
            }
            if !card.place.isEmpty {
                let at = card.position.map { " at " + NowPlaying.clock($0) } ?? ""
                html += "<small class=\"place\">left in \(e(card.place))\(at)</small>"
            }
            let used = LastUsedText.text(card.lastUsed, now: now, utcOffsetSeconds: utcOffsetSeconds)
            html += "<small class=\"last-used\">last used: \(e(used))</small>"
            html += "<details><summary>Change</summary>"
            html += renameForm(card: card, token: token)
            html += assignForm(card: card.id, folders: list.folders, token: token) + "</details></div>"
            html += """
                <form method="post" action="/cards/forget">\(tokenField(token))\
                <input type="hidden" name="card" value="\(e(card.id))">\
                <button class="forget" aria-label="Forget card \(e(card.id))">Forget</button></form></li>
                """
        }
        html += "</ul></main><script src=\"/app.js\" defer></script></body></html>"
        return html
    }

    /// The card's name: a text field with the name it has (the limit kept by the browser too;
    /// the daemon's check says why it refuses one).
    static func renameForm(card: CardList.Card, token: CSRFToken) -> String {
        let e = HTMLText.escape
        return """
            <form method="post" action="/cards/name" class="rename">\(tokenField(token))\
            <input type="hidden" name="card" value="\(e(card.id))">\
            <label>Name <input name="name" value="\(e(card.name))" maxlength="\(TagCard.maxNameLength)" \
            placeholder="yellow car" autocomplete="off"></label>\
            <button class="rename-button">Save name</button></form>
            """
    }

    /// The folder picker: folders without a card first in mind (marked, and a switch that
    /// shows only them), then assign.
    static func assignForm(card: String, folders: [CardList.Folder], token: CSRFToken) -> String {
        let e = HTMLText.escape
        var html = "<form method=\"post\" action=\"/cards/assign\" class=\"assign\">\(tokenField(token))"
        html += "<input type=\"hidden\" name=\"card\" value=\"\(e(card))\">"
        html += "<label>Folder <select name=\"folder\" required><option value=\"\">Choose a folder…</option>"
        for folder in folders {
            let mark = folder.card.map { " (card \(e($0)))" } ?? " · no card"
            let data = folder.card == nil ? " data-free" : ""
            html += "<option value=\"\(e(folder.path))\"\(data)>\(e(folder.path))\(mark)</option>"
        }
        html += "</select></label>"
        html +=
            "<label class=\"check\"><input type=\"checkbox\" class=\"only-free\"> only folders without a card</label>"
        html += "<button class=\"assign-button\">Assign</button></form>"
        return html
    }

    /// A Server-Sent Events message.
    public static func event(_ name: String, data: String) -> String {
        "event: \(name)\ndata: "
            + data.split(separator: "\n", omittingEmptySubsequences: false).joined(separator: "\ndata: ")
            + "\n\n"
    }
}
