PRAGMA user_version=13;
BEGIN TRANSACTION;
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
        , next_entry_id INTEGER NOT NULL DEFAULT 1);
INSERT INTO "playback" VALUES(1,1,2,61500,'paused','in-order',35,NULL,NULL,NULL,7,0,5);
CREATE TABLE podcasts (
            id          INTEGER PRIMARY KEY,
            url         TEXT NOT NULL UNIQUE,
            title       TEXT NOT NULL DEFAULT '',
            from_config INTEGER NOT NULL DEFAULT 0,
            problem     TEXT
        );
CREATE TABLE queue (
            pos      INTEGER PRIMARY KEY,
            track_id INTEGER NOT NULL
        , entry_id INTEGER, priority INTEGER NOT NULL DEFAULT 0, version INTEGER NOT NULL DEFAULT 0);
INSERT INTO "queue" VALUES(0,1,1,0,7);
INSERT INTO "queue" VALUES(1,2,2,0,7);
INSERT INTO "queue" VALUES(2,3,3,0,7);
INSERT INTO "queue" VALUES(3,-1,4,0,7);
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
INSERT INTO "recently_played" VALUES(1,'folder','','Album','Album/02 Two.mp3',61500,1);
CREATE TABLE settings (
            name  TEXT PRIMARY KEY,
            value TEXT NOT NULL
        ) WITHOUT ROWID;
INSERT INTO "settings" VALUES('replay_gain_mode','album');
CREATE TABLE stickers (
            type  TEXT NOT NULL,
            uri   TEXT NOT NULL,
            name  TEXT NOT NULL,
            value TEXT NOT NULL,
            PRIMARY KEY (type, uri, name)
        ) WITHOUT ROWID;
INSERT INTO "stickers" VALUES('song','Album/01 One.mp3','rating','5');
CREATE TABLE streams (
            id  INTEGER PRIMARY KEY,
            url TEXT NOT NULL UNIQUE
        );
INSERT INTO "streams" VALUES(1,'http://radio.example/jazz.mp3');
CREATE TABLE tag_cards (
            id          TEXT PRIMARY KEY,
            kind        TEXT NOT NULL,
            artist      TEXT NOT NULL DEFAULT '',
            value       TEXT NOT NULL,
            policy      TEXT,
            track_path  TEXT,
            position_ms INTEGER
        ) WITHOUT ROWID;
INSERT INTO "tag_cards" VALUES('04A1B2C3','folder','','Book','continue','Book/book.mp3',754000);
INSERT INTO "tag_cards" VALUES('DEADBEEF','album','Artist','Album',NULL,NULL,NULL);
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
        , last_position_hint BLOB, tags TEXT, format TEXT, cue_file TEXT, cue_start INTEGER, cue_end INTEGER, cue_start_ms INTEGER, cue_end_ms INTEGER, embedded_cue TEXT, chapters TEXT, cue_chapters TEXT, speed INTEGER);
INSERT INTO "tracks" VALUES(1,'Album/01 One.mp3',1000,1700000000000000000,'One','Artist','Album',1,181000,NULL,NULL,NULL,NULL,NULL,NULL,NULL,NULL,NULL,NULL,NULL,NULL,NULL,NULL,NULL);
INSERT INTO "tracks" VALUES(2,'Album/02 Two.mp3',1000,1700000000000000000,'Two','Artist','Album',2,203000,NULL,NULL,NULL,NULL,NULL,NULL,NULL,NULL,NULL,NULL,NULL,NULL,NULL,NULL,NULL);
INSERT INTO "tracks" VALUES(3,'Book/book.mp3',1000,1700000000000000000,'The Book','Artist','The Book',3,3600000,NULL,NULL,754000,NULL,NULL,NULL,NULL,NULL,NULL,NULL,NULL,NULL,NULL,NULL,NULL);
DELETE FROM "sqlite_sequence";
INSERT INTO "sqlite_sequence" VALUES('tracks',3);
COMMIT;
