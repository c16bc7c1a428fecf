import JukeboxCore
import LinuxSupport
import SQLite

extension LibraryScanner {
    /// The largest file read as a CUE sheet (one of 99 tracks is a few kB).
    static let cueSheetLimit = 1 << 20

    /// Brings the rows of the CUE sheets' tracks in line with the sheets, as MPD lists them:
    /// each sheet's audio tracks as `album.cue/track0001`, `track0002`, ... (counted in sheet
    /// order), with the sheet's tags over the audio file's, the track's exact frames in the file,
    /// and the file's size, mtime and format. A track whose file is not in the library (missing,
    /// unplayable) is left out, as MPD drops it. The sheets are read on every scan (a few kB
    /// each: the rows depend on the sheet and on its audio file); rows are written only where
    /// they changed, after the audio files' rows (which they are made from). The rows kept are
    /// taken out of `existing`: what is left there is deleted.
    func updateCueTracks(
        _ sheets: [DirectoryWalker.File], audioFiles: Set<String>, connection: Connection,
        existing: inout [String: Existing], report: inout ScanReport
    ) throws {
        var old: [String: TrackRecord] = [:]
        let select = try connection.prepare(
            "SELECT \(LibraryStore.trackColumns) FROM tracks WHERE cue_file IS NOT NULL")
        while try select.step() {
            let row = LibraryStore.track(from: select)
            old[row.path] = row
        }
        // Sheets inside audio files (a FLAC's CUESHEET), by the file's path.
        var embedded: [(path: String, text: String)] = []
        let inside = try connection.prepare(
            "SELECT path, embedded_cue FROM tracks WHERE embedded_cue IS NOT NULL AND problem IS NULL")
        while try inside.step() {
            if let path = inside.string(at: 0), audioFiles.contains(path), let text = inside.string(at: 1) {
                embedded.append((path, text))
            }
        }
        // Files whose chapters a sheet gave, and what they hold now.
        var chaptersBefore: [String: String] = [:]
        let withChapters = try connection.prepare(
            "SELECT path, cue_chapters FROM tracks WHERE cue_chapters IS NOT NULL")
        while try withChapters.step() {
            chaptersBefore[withChapters.string(at: 0) ?? ""] = withChapters.string(at: 1) ?? ""
        }
        if sheets.isEmpty && embedded.isEmpty && old.isEmpty && chaptersBefore.isEmpty { return }
        let lookup = try connection.prepare(
            "SELECT \(LibraryStore.trackColumns) FROM tracks WHERE path = ? AND problem IS NULL")
        var writes: [(row: TrackRecord, newSpan: Bool)] = []
        var chapters: [String: String] = [:]
        let all: [(String, DirectoryWalker.File?, String?)] =
            sheets.map { ($0.path, $0, nil) } + embedded.map { ($0.path, nil, $0.text) }
        for (sheetPath, file, text) in all.sorted(by: { $0.0 < $1.0 }) {
            if isCancelled { throw Cancelled() }
            let rows: [TrackRecord]
            do {
                if let file {
                    guard file.size <= Self.cueSheetLimit else {
                        throw CueSheet.Problem("too large for a CUE sheet (\(file.size) bytes)")
                    }
                    let bytes = try readWholeFile(musicDirectory + "/" + file.path, limit: Self.cueSheetLimit)
                    let parsed = try CueSheet.parse(bytes)
                    if let found = try cueChapters(sheetPath, parsed, container: nil, audioFiles, lookup) {
                        chapters[found.file] = found.text
                        continue
                    }
                    rows = try cueTracks(sheetPath, parsed, container: nil, audioFiles, lookup)
                } else {
                    let parsed = try CueSheet.parse(Array((text ?? "").utf8))
                    if let found = try cueChapters(sheetPath, parsed, container: sheetPath, audioFiles, lookup) {
                        chapters[found.file] = found.text
                        continue
                    }
                    rows = try cueTracks(sheetPath, parsed, container: sheetPath, audioFiles, lookup)
                }
            } catch {
                logger.info("skipped \(sheetPath): \(error)")
                report.skipped.append(.init(path: sheetPath, reason: "\(error)"))
                continue
            }
            for var row in rows {
                guard let before = old[row.path] else {
                    writes.append((row, true))
                    report.added += 1
                    continue
                }
                existing.removeValue(forKey: row.path)
                row.id = before.id
                row.lastPositionMs = before.lastPositionMs
                if row == before {
                    report.unchanged += 1
                } else {
                    let sameAudio = row.cue == before.cue && row.size == before.size && row.mtimeNs == before.mtimeNs
                    writes.append((row, !sameAudio))
                    report.updated += 1
                }
            }
        }
        if !writes.isEmpty { try CueTrackWriter(connection).write(writes) }
        let changed = chapters.filter { chaptersBefore[$0.key] != $0.value }
        let gone = chaptersBefore.keys.filter { chapters[$0] == nil }
        if !changed.isEmpty || !gone.isEmpty {
            let set = try connection.prepare("UPDATE tracks SET cue_chapters = ?2 WHERE path = ?1")
            try connection.transaction(durable: false) {
                for (path, text) in changed.map({ ($0.key, Optional($0.value)) }) + gone.map({ ($0, nil) }) {
                    try set.bind(path, at: 1)
                    try set.bind(text, at: 2)
                    try set.run()
                }
            }
            report.updated += changed.count + gone.count
        }
    }

    /// The sheet as its file's chapters (`ChapterList.text`), when `cueSheets` says it is
    /// read so: its tracks all lie in one audio file of the library (the one holding it,
    /// for a sheet inside a file), which is long enough for `auto`. Each track is a chapter
    /// from its INDEX 01, titled by its TITLE (else "Track N").
    private func cueChapters(
        _ sheetPath: String, _ parsed: CueSheet, container: String?, _ audioFiles: Set<String>, _ lookup: Statement
    ) throws -> (file: String, text: String)? {
        guard cueSheets != .tracks else { return nil }
        let folder = sheetPath.lastIndex(of: "/").map { String(sheetPath[..<$0]) } ?? ""
        let files = Set(parsed.tracks.map { container ?? Self.resolve($0.file, in: folder, root: musicDirectory) })
        guard files.count == 1, let only = files.first, let file = only, audioFiles.contains(file),
            let audio = try record(at: file, lookup),
            cueSheets.readsAsChapters(files: 1, fileDurationMs: audio.durationMs, minimumMs: cueChaptersMs)
        else { return nil }
        let list = ChapterList(
            parsed.tracks.map { Chapter(title: $0.title ?? "Track \($0.number)", startMs: $0.startMs) },
            durationMs: audio.durationMs)
        guard let list else { return nil }
        for warning in parsed.warnings { logger.info("\(sheetPath): \(warning)") }
        return (file, list.text)
    }

    /// The rows of the tracks of the sheet at `sheetPath` (ids 0); throws when it gives none.
    /// `container`: the audio file a sheet inside a file is in (its FILE lines are not used).
    private func cueTracks(
        _ sheetPath: String, _ parsed: CueSheet, container: String?, _ audioFiles: Set<String>, _ lookup: Statement
    ) throws -> [TrackRecord] {
        for warning in parsed.warnings { logger.info("\(sheetPath): \(warning)") }
        let folder = sheetPath.lastIndex(of: "/").map { String(sheetPath[..<$0]) } ?? ""
        var rows: [TrackRecord] = []
        var missing: [String] = []
        for (index, track) in parsed.tracks.enumerated() {
            let number = String(index + 1)
            let path = sheetPath + "/track" + String(repeating: "0", count: max(0, 4 - number.count)) + number
            guard let file = container ?? Self.resolve(track.file, in: folder, root: musicDirectory),
                audioFiles.contains(file),
                let audio = try record(at: file, lookup), let rate = audio.format.flatMap(Self.rate)
            else {
                if !missing.contains(track.file) { missing.append(track.file) }
                continue
            }
            // An end past the file's (a sheet for a longer rip) is the file's end.
            var track = track
            if let end = track.endMs, let fileMs = audio.durationMs, end > fileMs { track.end = nil }
            let durationMs = (track.endMs ?? audio.durationMs ?? 0) - track.startMs
            guard durationMs > 0 else {
                logger.info("\(sheetPath): track \(track.number) starts past the end of \(file)")
                continue
            }
            let standIn = Self.title(nil, path: audio.path)
            let names = Set(track.tags.map(\.name))
            rows.append(
                TrackRecord(
                    id: 0, path: path, size: audio.size, mtimeNs: audio.mtimeNs,
                    title: Self.title(track.title ?? (audio.title == standIn ? nil : audio.title), path: path),
                    artist: Self.nonEmpty(track.artist) ?? audio.artist,
                    album: Self.nonEmpty(track.album) ?? audio.album,
                    trackNumber: track.trackNumber ?? audio.trackNumber, durationMs: durationMs,
                    tags: track.tags + audio.tags.filter { !names.contains($0.name) }, format: audio.format,
                    cue: CueSpan(
                        file: file, startFrame: track.startFrame(rate: rate), endFrame: track.endFrame(rate: rate),
                        startMs: track.startMs, endMs: track.endMs)))
        }
        if rows.isEmpty {
            throw CueSheet.Problem(
                "its audio file is not in the library: " + missing.map { "'\($0)'" }.joined(separator: ", "))
        }
        if !missing.isEmpty {
            logger.info("\(sheetPath): not in the library: \(missing.map { "'\($0)'" }.joined(separator: ", "))")
        }
        return rows
    }

    private func record(at path: String, _ lookup: Statement) throws -> TrackRecord? {
        defer { lookup.reset() }
        try lookup.bind(path, at: 1)
        return try lookup.step() ? LibraryStore.track(from: lookup) : nil
    }

    /// The sample rate of a `44100:16:2` format.
    static func rate(_ format: String) -> Int? {
        guard let text = format.split(separator: ":").first, let rate = Int(text), rate > 0 else { return nil }
        return rate
    }

    /// A sheet's FILE name as a path relative to the music directory: relative to the sheet's
    /// folder, or absolute inside `root`; `.` and `..` resolved. nil when it lies outside.
    static func resolve(_ name: String, in folder: String, root: String) -> String? {
        var path = name
        if path.hasPrefix("/") {
            guard path.hasPrefix(root + "/") else { return nil }
            path.removeFirst(root.count + 1)
        } else if !folder.isEmpty {
            path = folder + "/" + path
        }
        var parts: [Substring] = []
        for part in path.split(separator: "/") where part != "." {
            if part == ".." {
                guard parts.popLast() != nil else { return nil }
            } else {
                parts.append(part)
            }
        }
        return parts.isEmpty ? nil : parts.joined(separator: "/")
    }

    /// Inserts (id 0) and updates the rows of CUE sheets' tracks in one transaction; an update
    /// whose span or audio file changed forgets the remembered position.
    private struct CueTrackWriter {
        let connection: Connection
        let insert: Statement
        let update: Statement

        init(_ connection: Connection) throws {
            self.connection = connection
            insert = try connection.prepare(
                """
                INSERT INTO tracks(size, mtime_ns, title, artist, album, track_no, duration_ms, tags, format, cue_file,
                    cue_start, cue_end, cue_start_ms, cue_end_ms, path)
                VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10, ?11, ?12, ?13, ?14, ?15)
                """)
            update = try connection.prepare(
                """
                UPDATE tracks SET size = ?1, mtime_ns = ?2, title = ?3, artist = ?4, album = ?5, track_no = ?6,
                    duration_ms = ?7, tags = ?8, format = ?9, cue_file = ?10, cue_start = ?11, cue_end = ?12,
                    cue_start_ms = ?13, cue_end_ms = ?14, problem = NULL, lyric_path = NULL,
                    last_position_ms = iif(?16, NULL, last_position_ms),
                    last_position_hint = iif(?16, NULL, last_position_hint)
                WHERE id = ?15
                """)
        }

        func write(_ writes: [(row: TrackRecord, newSpan: Bool)]) throws {
            try connection.transaction(durable: false) {
                for (row, newSpan) in writes {
                    let statement = row.id == 0 ? insert : update
                    try statement.bind(row.size, at: 1)
                    try statement.bind(row.mtimeNs, at: 2)
                    try statement.bind(row.title, at: 3)
                    try statement.bind(row.artist, at: 4)
                    try statement.bind(row.album, at: 5)
                    try statement.bind(row.trackNumber, at: 6)
                    try statement.bind(row.durationMs, at: 7)
                    try statement.bind(TagText.encode(row.tags), at: 8)
                    try statement.bind(row.format, at: 9)
                    try statement.bind(row.cue?.file, at: 10)
                    try statement.bind(row.cue?.startFrame, at: 11)
                    try statement.bind(row.cue?.endFrame, at: 12)
                    try statement.bind(row.cue?.startMs, at: 13)
                    try statement.bind(row.cue?.endMs, at: 14)
                    if row.id == 0 {
                        try statement.bind(row.path, at: 15)
                    } else {
                        try statement.bind(row.id, at: 15)
                        try statement.bind(newSpan ? 1 : 0, at: 16)
                    }
                    try statement.run()
                }
            }
        }
    }
}
