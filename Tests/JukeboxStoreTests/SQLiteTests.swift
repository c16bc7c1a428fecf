import Glibc
import JukeboxTestSupport
import SQLite
import Testing

@Suite struct SQLiteTests {
    @Test func bindsAndReadsEveryType() throws {
        let dir = try TemporaryDirectory()
        let db = try Connection(path: dir.file("t.sqlite"))
        try db.execute("CREATE TABLE t(i INTEGER, s TEXT, d REAL, b BLOB, n TEXT)")
        let insert = try db.prepare("INSERT INTO t VALUES (?, ?, ?, ?, ?)")
        try insert.bind(Int64.min, at: 1)
        try insert.bind("grüße ✓", at: 2)
        try insert.bind(2.5, at: 3)
        try insert.bind([0, 1, 255] as [UInt8], at: 4)
        try insert.bind(nil as String?, at: 5)
        try insert.run()
        #expect(db.lastInsertRowID == 1)
        let select = try db.prepare("SELECT i, s, d, b, n FROM t")
        #expect(try select.step())
        #expect(select.int64(at: 0) == Int64.min)
        #expect(select.string(at: 1) == "grüße ✓")
        #expect(select.double(at: 2) == 2.5)
        #expect(select.blob(at: 3) == [0, 1, 255])
        #expect(select.isNull(at: 4))
        #expect(select.string(at: 4) == nil)
        #expect(try !select.step())
    }

    @Test func pragmasAreSetOnOpen() throws {
        let dir = try TemporaryDirectory()
        let db = try Connection(path: dir.file("t.sqlite"))
        try db.execute("CREATE TABLE t(x)")
        #expect(try db.scalarInt("PRAGMA page_size") == 1024)
        #expect(try db.strings("PRAGMA journal_mode") == ["wal"])
        #expect(try db.scalarInt("PRAGMA synchronous") == 1)  // NORMAL
    }

    @Test func withoutCheckpointOnCloseTheCommittedWALStaysAndIsReadBack() throws {
        let dir = try TemporaryDirectory()
        let path = dir.file("t.sqlite")
        var options = Connection.Options()
        options.checkpointOnClose = false
        do {
            let db = try Connection(path: path, options: options)
            try db.execute("CREATE TABLE t(x)")
            try db.transaction(durable: true) { try db.execute("INSERT INTO t VALUES (42)") }
        }
        // the close copied nothing: the main file holds only the header page, the WAL the rest
        var st = stat()
        #expect(stat(path + "-wal", &st) == 0 && st.st_size > 0)
        #expect(stat(path, &st) == 0 && st.st_size == 1024)
        let reopened = try Connection(path: path, options: options)
        #expect(try reopened.scalarInt("SELECT x FROM t") == 42)
        #expect(try reopened.strings("PRAGMA quick_check") == ["ok"])
    }

    @Test func checkpointOnCloseByDefaultFoldsTheWALIntoTheFile() throws {
        let dir = try TemporaryDirectory()
        let path = dir.file("t.sqlite")
        do {
            let db = try Connection(path: path)
            try db.execute("CREATE TABLE t(x); INSERT INTO t VALUES (7)")
        }
        var st = stat()
        #expect(stat(path + "-wal", &st) != 0)
        #expect(try Connection(path: path).scalarInt("SELECT x FROM t") == 7)
    }

    @Test func errorsCarryCodeMessageSQLAndPath() throws {
        let dir = try TemporaryDirectory()
        let db = try Connection(path: dir.file("t.sqlite"))
        let error = #expect(throws: SQLiteError.self) { try db.prepare("SELECT * FROM missing") }
        #expect(error?.primaryCode == 1)
        #expect(error?.message == "no such table: missing")
        #expect(error?.sql == "SELECT * FROM missing")
        #expect(error?.path == dir.file("t.sqlite"))
        #expect(error?.description.contains("no such table: missing") == true)
        #expect(error?.description.contains("SELECT * FROM missing") == true)
    }

    @Test func constraintViolationIsReportedFromStep() throws {
        let dir = try TemporaryDirectory()
        let db = try Connection(path: dir.file("t.sqlite"))
        try db.execute("CREATE TABLE t(x TEXT UNIQUE)")
        let insert = try db.prepare("INSERT INTO t VALUES (?)")
        try insert.bind("a", at: 1)
        try insert.run()
        try insert.bind("a", at: 1)
        let error = #expect(throws: SQLiteError.self) { try insert.run() }
        #expect(error?.primaryCode == 19)  // SQLITE_CONSTRAINT
    }

    @Test func transactionsCommitRollBackAndCountDurableCommits() throws {
        let dir = try TemporaryDirectory()
        let db = try Connection(path: dir.file("t.sqlite"))
        try db.execute("CREATE TABLE t(x)")
        try db.transaction(durable: false) { try db.execute("INSERT INTO t VALUES (1)") }
        try db.transaction(durable: true) { try db.execute("INSERT INTO t VALUES (2)") }
        #expect(try db.scalarInt("PRAGMA synchronous") == 1)  // back to NORMAL after a durable commit
        struct Boom: Error {}
        #expect(throws: Boom.self) {
            try db.transaction(durable: true) {
                try db.execute("INSERT INTO t VALUES (3)")
                throw Boom()
            }
        }
        #expect(!db.isInTransaction)
        #expect(try db.scalarInt("SELECT count(*) FROM t") == 2)
        #expect(db.commitCount == 2)
        #expect(db.durableCommitCount == 1)
    }

    @Test func notADatabaseFailsOnOpen() throws {
        let dir = try TemporaryDirectory()
        writeFile(dir.file("text.sqlite"), String(repeating: "this is a text file, not a database\n", count: 40))
        let error = #expect(throws: SQLiteError.self) { try Connection(path: dir.file("text.sqlite")) }
        #expect(error?.isDamagedFile == true)
    }
}
