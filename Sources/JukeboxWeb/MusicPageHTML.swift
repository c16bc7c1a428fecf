extension Pages {
    /// `/music`: browse the library's folders or search it, a page of results at a time, each
    /// with Play now and Add to queue; on the start page also the favourites and what was
    /// played recently. One form holds the page's buttons (the token once; each button names
    /// what it plays), so it works without the script.
    public static func music(_ page: MusicPage, token: CSRFToken) -> String {
        let e = HTMLText.escape
        let query = page.query
        var html = head("Jukebox music", token: token) + navigation(current: "/music")
        html += "<main id=\"music\">"
        html += nowLine(page)
        html += """
            <form method="get" action="/music" role="search" class="search">\
            <input type="search" name="q" aria-label="Search" placeholder="Title, artist or album" \
            value="\(e(query.text))"><select name="by" aria-label="Search in">
            """
        for field in MusicQuery.Field.allCases {
            html +=
                "<option value=\"\(field.rawValue)\"\(field == query.field ? " selected" : "")>\(field.label)</option>"
        }
        html += "</select><button>Search</button></form>"
        switch page.done {
        case "play": html += "<p class=\"message\" role=\"status\">Playing.</p>"
        case "add": html += "<p class=\"message\" role=\"status\">Added to the queue.</p>"
        case "full": html += "<p class=\"message\" role=\"status\">The queue is full: the first songs were added.</p>"
        default: break
        }
        if let problem = page.problem { html += "<p class=\"message\" role=\"alert\">\(e(problem))</p>" }
        html += "<form method=\"post\" action=\"/music/play\">\(tokenField(token))"
        html += "<input type=\"hidden\" name=\"back\" value=\"\(e(query.href()))\">"
        if page.isStart { html += startSections(page) }
        html += heading(page)
        let shown = page.pageRange
        html += "<ul id=\"music-list\">"
        for index in shown { html += musicEntry(page.entry(at: index)) }
        html += "</ul></form>"
        html += pager(page, shown: shown)
        html += "</main></body></html>"
        return html
    }

    /// What plays, linking to the now-playing page with its queue.
    static func nowLine(_ page: MusicPage) -> String {
        let now = page.now
        guard !now.file.isEmpty else {
            return "<p id=\"music-now\"><a href=\"/\">Nothing playing · queue: \(page.queueLength)</a></p>"
        }
        let e = HTMLText.escape
        let state = now.state == "play" ? "▶" : "⏸"
        let artist = now.artist.isEmpty ? "" : " – \(e(now.artist))"
        return """
            <p id="music-now" data-file="\(e(now.file))"><a href="/">\(state) <span id="music-title">\(e(now.title))</span>\
            \(artist) · \(NowPlaying.clock(now.elapsed)) / \(NowPlaying.clock(now.duration)) · queue: \(page.queueLength)</a></p>
            """
    }

    /// The search's count, or the folder's place with its own buttons.
    static func heading(_ page: MusicPage) -> String {
        let e = HTMLText.escape
        let query = page.query
        let listing = page.listing
        if query.isSearch {
            let found = listing.songs.count
            let count =
                page.truncated
                ? "More than \(MusicQuery.searchLimit) songs found: the first \(MusicQuery.searchLimit) are shown; narrow the search."
                : found == 1 ? "1 song found." : "\(found) songs found."
            return "<h2 id=\"music-count\">\(e(count))</h2>"
        }
        var html = "<p class=\"crumbs\"><a href=\"/music\">Music</a>"
        let parts = query.path.split(separator: "/")
        for index in parts.indices {
            let path = parts[...index].joined(separator: "/")
            html +=
                index == parts.count - 1
                ? " / <strong>\(e(String(parts[index])))</strong>"
                : " / <a href=\"\(e(MusicQuery(path: path).href()))\">\(e(String(parts[index])))</a>"
        }
        html += "</p>"
        if !query.path.isEmpty {
            html += "<div class=\"folder-actions\">\(playButtons(query.path, name: "this folder"))</div>"
        }
        let folders = listing.folders.count == 1 ? "1 folder" : "\(listing.folders.count) folders"
        let songs = listing.songs.count == 1 ? "1 song" : "\(listing.songs.count) songs"
        html += "<h2 id=\"music-count\">\(folders), \(songs)</h2>"
        return html
    }

    static func playButtons(_ uri: String, name: String) -> String {
        let e = HTMLText.escape
        return """
            <button name="now" value="\(e(uri))" aria-label="Play \(e(name)) now">▶ Play</button>\
            <button name="add" value="\(e(uri))" aria-label="Add \(e(name)) to the queue">＋ Queue</button>
            """
    }

    static func musicEntry(_ entry: MusicEntry) -> String {
        let e = HTMLText.escape
        switch entry {
        case .folder(let path):
            let name = String(path.split(separator: "/").last ?? "")
            return """
                <li class="folder" data-path="\(e(path))"><a class="grow" href="\(e(MusicQuery(path: path).href()))">\
                📁 \(e(name))</a>\(playButtons(path, name: name))</li>
                """
        case .song(let song):
            return "<li class=\"song\" data-file=\"\(e(song.file))\">" + songText(song)
                + playButtons(song.file, name: song.title)
                + "</li>"
        }
    }

    static func songText(_ song: MusicListing.Song) -> String {
        let e = HTMLText.escape
        let about = [song.artist, song.album].filter { !$0.isEmpty }.joined(separator: " · ")
        let length = song.duration.map { " " + NowPlaying.clock($0) } ?? ""
        return "<span class=\"grow\"><span>\(e(song.title))</span><small>\(e(about))\(length)</small></span>"
    }

    /// The start page's favourites (play them all, or one) and recently played (continue where
    /// it was left).
    static func startSections(_ page: MusicPage) -> String {
        let e = HTMLText.escape
        var html = "<section id=\"favourites\"><h2>Favourites</h2>"
        if page.favourites.isEmpty {
            html += "<p>None yet: mark a playing song with the box's favourite button.</p>"
        } else {
            html +=
                "<button name=\"favourites\" value=\"1\" class=\"wide\">▶ Play all \(page.favourites.count)</button><ul>"
            for song in page.favourites.prefix(MusicQuery.pageSize) {
                html +=
                    "<li class=\"song\" data-file=\"\(e(song.file))\">" + songText(song)
                    + playButtons(song.file, name: song.title) + "</li>"
            }
            html += "</ul>"
            if page.favourites.count > MusicQuery.pageSize {
                html += "<p>and \(page.favourites.count - MusicQuery.pageSize) more (Play all plays them).</p>"
            }
        }
        html += "</section><section id=\"recent\"><h2>Recently played</h2>"
        if page.recent.isEmpty { html += "<p>Nothing played yet.</p>" }
        html += "<ul>"
        for entry in page.recent {
            html += """
                <li data-recent="\(entry.number)"><span class="grow">\(e(entry.text))</span>\
                <button name="recent" value="\(entry.number)" aria-label="Continue \(e(entry.text))">▶ Continue</button></li>
                """
        }
        html += "</ul></section><h2>Folders</h2>"
        return html
    }

    /// "Showing 51–100 of 240", with links to the previous and next pages.
    static func pager(_ page: MusicPage, shown: Range<Int>) -> String {
        let total = page.listing.count
        guard total > MusicQuery.pageSize else { return "" }
        let e = HTMLText.escape
        var html = "<p class=\"pager\">"
        if page.query.page > 0 {
            html += "<a rel=\"prev\" href=\"\(e(page.query.href(page: page.query.page - 1)))\">Back</a> "
        }
        html +=
            shown.isEmpty
            ? "Nothing on this page. "
            : "Showing \(shown.lowerBound + 1)–\(shown.upperBound) of \(total). "
        if shown.upperBound < total {
            html += "<a rel=\"next\" href=\"\(e(page.query.href(page: page.query.page + 1)))\">More</a>"
        }
        return html + "</p>"
    }
}
