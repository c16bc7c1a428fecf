import SQLite

/// The database schema, versioned with `PRAGMA user_version`: migration `n` takes the
/// database from version `n` to `n + 1`. Append new migrations; never edit shipped ones.
enum Schema {
    static let migrations: [String] = [
        // 0 -> 1
        """
        CREATE TABLE tracks (
            id               INTEGER PRIMARY KEY AUTOINCREMENT,
            path             TEXT    NOT NULL UNIQUE,   -- relative to music_dir
            size             INTEGER NOT NULL,
            mtime_ns         INTEGER NOT NULL,
            title            TEXT    NOT NULL,
            artist           TEXT,
            album            TEXT,
            track_no         INTEGER,
            duration_ms      INTEGER,
            lyric_path       TEXT,                      -- absolute path of the .lrc/.ksc sidecar
            problem          TEXT,                      -- why it is not playable; NULL = playable
            last_position_ms INTEGER
        );
        CREATE TABLE queue (
            pos      INTEGER PRIMARY KEY,
            track_id INTEGER NOT NULL
        );
        CREATE TABLE playback (
            id            INTEGER PRIMARY KEY CHECK (id = 1),
            queue_index   INTEGER,
            track_id      INTEGER,
            position_ms   INTEGER NOT NULL,
            state         TEXT    NOT NULL,
            mode          TEXT    NOT NULL,
            volume        INTEGER NOT NULL,
            shuffle_order BLOB,                         -- little-endian Int64 queue positions
            shuffle_history BLOB,                       -- little-endian Int64 queue positions
            rng_state     BLOB,                         -- little-endian UInt64 words
            queue_version INTEGER NOT NULL,
            journal_seq   INTEGER NOT NULL DEFAULT 0
        );
        """,
        // 1 -> 2: where to start reading a long track to reach its remembered position
        // (a SeekHint: MPEG frame, byte offset, file size, little-endian Int64s)
        """
        ALTER TABLE tracks ADD COLUMN last_position_hint BLOB;
        """,
        // 2 -> 3: the tags MPD clients use beyond title/artist/album/track (TagText: NULL until
        // read, so the next scan probes files scanned before) and the audio format (`44100:16:2`)
        """
        ALTER TABLE tracks ADD COLUMN tags TEXT;
        ALTER TABLE tracks ADD COLUMN format TEXT;
        """,
        // 3 -> 4: MPD's stickers (name/value pairs per song path, kept when a rescan drops and
        // finds the song again) and the player settings MPD clients change (replay_gain_mode)
        """
        CREATE TABLE stickers (
            type  TEXT NOT NULL,
            uri   TEXT NOT NULL,
            name  TEXT NOT NULL,
            value TEXT NOT NULL,
            PRIMARY KEY (type, uri, name)
        ) WITHOUT ROWID;
        CREATE TABLE settings (
            name  TEXT PRIMARY KEY,
            value TEXT NOT NULL
        ) WITHOUT ROWID;
        """,
        // 4 -> 5: Recently played, the sources the box chose (a PlaySource: its kind, an
        // album's artist, the folder's path or the album's or playlist's name), newest = the
        // highest seq, each with the track and position where it was left; `holds_queue`:
        // the queue is still that source's (no client has changed it since).
        """
        CREATE TABLE recently_played (
            seq         INTEGER PRIMARY KEY,
            kind        TEXT    NOT NULL,
            artist      TEXT    NOT NULL DEFAULT '',
            name        TEXT    NOT NULL DEFAULT '',
            track_path  TEXT    NOT NULL,
            position_ms INTEGER NOT NULL,
            holds_queue INTEGER NOT NULL DEFAULT 0,
            UNIQUE (kind, artist, name)
        );
        """,
        // 5 -> 6: the tracks of CUE sheets (`Album/album.cue/track0001`): the audio file they
        // are part of (relative to music_dir), their first frame and the frame after their last
        // (NULL: to the file's end), and the same in ms as the sheet gives them (MPD's Range);
        // for an audio file, the CUE sheet inside it (a FLAC's CUESHEET), as sheet text
        """
        ALTER TABLE tracks ADD COLUMN cue_file TEXT;
        ALTER TABLE tracks ADD COLUMN cue_start INTEGER;
        ALTER TABLE tracks ADD COLUMN cue_end INTEGER;
        ALTER TABLE tracks ADD COLUMN cue_start_ms INTEGER;
        ALTER TABLE tracks ADD COLUMN cue_end_ms INTEGER;
        ALTER TABLE tracks ADD COLUMN embedded_cue TEXT;
        """,
        // 6 -> 7: NFC/RFID cards: what each plays (`kind`: folder, album, artist, playlist, url,
        // command; `value`: the path, name, URL or command line; `artist`: an album's artist), its
        // place policy (continue, start; NULL: by length) and where its music was left.
        """
        CREATE TABLE tag_cards (
            id          TEXT PRIMARY KEY,
            kind        TEXT NOT NULL,
            artist      TEXT NOT NULL DEFAULT '',
            value       TEXT NOT NULL,
            policy      TEXT,
            track_path  TEXT,
            position_ms INTEGER
        ) WITHOUT ROWID;
        """,
        // 7 -> 8: MPD's per-entry facts of the queue (the entry's id, NULL in rows from before,
        // which get new ids on load; its priority; the queue version of its last change, 0 =
        // unknown) and the id the next added entry gets; `playback.queue_version` is MPD's
        // queue version from now on.
        """
        ALTER TABLE queue ADD COLUMN entry_id INTEGER;
        ALTER TABLE queue ADD COLUMN priority INTEGER NOT NULL DEFAULT 0;
        ALTER TABLE queue ADD COLUMN version INTEGER NOT NULL DEFAULT 0;
        ALTER TABLE playback ADD COLUMN next_entry_id INTEGER NOT NULL DEFAULT 1;
        """,
        // 8 -> 9: chapters (`ChapterList.text`: `startMs TAB title` lines; '' = read, none):
        // the file's own (MP4 chapter list, ID3 CHAP frames), and a CUE sheet's read as the
        // file's chapters (`[chapters] cue_sheets`; the scanner's CUE pass sets and clears it).
        // Rows from before are marked read, but for long MP3 and MP4 files (over 5 minutes),
        // which the next scan reads again (NULL `chapters`) for the chapters they may hold.
        """
        ALTER TABLE tracks ADD COLUMN chapters TEXT;
        ALTER TABLE tracks ADD COLUMN cue_chapters TEXT;
        UPDATE tracks SET chapters = ''
        WHERE cue_file IS NOT NULL OR problem IS NOT NULL OR coalesce(duration_ms, 0) <= 300000
            OR NOT (lower(path) LIKE '%.mp3' OR lower(path) LIKE '%.m4a' OR lower(path) LIKE '%.m4b'
                OR lower(path) LIKE '%.mp4');
        """,
        // 9 -> 10: the playback speed a long track (a book) was last played at, in hundredths
        // (NULL: the box's speed, `settings.speed`).
        """
        ALTER TABLE tracks ADD COLUMN speed INTEGER;
        """,
        // 10 -> 11: untagged files now have an empty title (MPD gives them none; the file name was
        // stored instead). A title that may be the file name cannot tell whether a tag said so,
        // so those files' tags are marked unread and the next scan reads them again (a few
        // more files, named like a folder or with dots, are read again for nothing).
        """
        UPDATE tracks SET tags = NULL
        WHERE cue_file IS NULL AND instr('/' || path, '/' || title || '.') > 0;
        """,
        // 11 -> 12: web radio stations in the queue: a queue row's track_id -N is the stream `id` N
        // (track ids are positive), so a queue of songs and stations is saved as before.
        """
        CREATE TABLE streams (
            id  INTEGER PRIMARY KEY,
            url TEXT NOT NULL UNIQUE
        );
        """,
        // 12 -> 13: podcasts: the followed feeds and their episodes, with each episode's download
        // checkpoint (`durable_bytes` fdatasync'd of `expected_bytes`), its file in the cache
        // folder, whether it was played and where it was left.
        """
        CREATE TABLE podcasts (
            id          INTEGER PRIMARY KEY,
            url         TEXT NOT NULL UNIQUE,
            title       TEXT NOT NULL DEFAULT '',
            from_config INTEGER NOT NULL DEFAULT 0,
            problem     TEXT
        );
        CREATE TABLE episodes (
            id             INTEGER PRIMARY KEY,
            podcast_id     INTEGER NOT NULL,
            guid           TEXT NOT NULL,
            title          TEXT NOT NULL,
            published      INTEGER,
            url            TEXT NOT NULL,
            length         INTEGER,
            type           TEXT,
            state          TEXT NOT NULL DEFAULT 'listed',
            durable_bytes  INTEGER NOT NULL DEFAULT 0,
            expected_bytes INTEGER,
            file           TEXT,
            played         INTEGER NOT NULL DEFAULT 0,
            position_ms    INTEGER NOT NULL DEFAULT 0,
            problem        TEXT,
            UNIQUE (podcast_id, guid)
        );
        """,
        // 13 -> 14: a card's name, as a parent gave it ('' = none), and when it was last put on
        // the reader (seconds since 1970, UTC; NULL = never, or only while the clock was not
        // trusted).
        """
        ALTER TABLE tag_cards ADD COLUMN name TEXT NOT NULL DEFAULT '';
        ALTER TABLE tag_cards ADD COLUMN last_used INTEGER;
        """,
    ]

    /// The version this code writes.
    static var currentVersion: Int64 { Int64(migrations.count) }

    /// A database whose schema is newer than this program understands.
    struct NewerVersion: Error, CustomStringConvertible {
        var found: Int64
        var description: String {
            "its schema version \(found) is newer than this jukeboxd understands (\(Schema.currentVersion))"
        }
    }

    /// Brings the database up to `currentVersion`. Safe to call from two connections at
    /// once: the version is read again inside the write transaction.
    static func migrate(_ connection: Connection) throws {
        let version = try connection.scalarInt("PRAGMA user_version") ?? 0
        if version == currentVersion { return }
        if version > currentVersion { throw NewerVersion(found: version) }
        try connection.transaction(durable: true) {
            let start = try connection.scalarInt("PRAGMA user_version") ?? 0
            guard start < currentVersion else { return }
            for step in Int(start)..<migrations.count {
                try connection.execute(migrations[step])
            }
            try connection.execute("PRAGMA user_version=\(currentVersion)")
        }
    }
}
