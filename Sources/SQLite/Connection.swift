import CSQLite
import Glibc
import LinuxSupport

/// One open SQLite database connection: the single owner of its `sqlite3*` handle, which it
/// closes in `deinit` (prepared statements keep their connection alive, so the handle is
/// closed only after every statement was finalized).
///
/// Thread affinity: a connection is used by ONE thread, the one that created it (the
/// control thread for the store, `jb-scan` for the scanner). It is opened with
/// `SQLITE_OPEN_NOMUTEX`, so SQLite does no locking of its own; debug builds trap on use
/// from another thread. Two threads that both need the database open two connections.
public final class Connection {
    /// Flags for `sqlite3_open_v2` (`SQLITE_OPEN_*`).
    public struct OpenFlags: OptionSet, Sendable {
        public let rawValue: Int32
        public init(rawValue: Int32) { self.rawValue = rawValue }
        public static let readOnly = OpenFlags(rawValue: SQLITE_OPEN_READONLY)
        public static let readWrite = OpenFlags(rawValue: SQLITE_OPEN_READWRITE)
        public static let create = OpenFlags(rawValue: SQLITE_OPEN_CREATE)
    }

    /// Connection settings applied right after opening.
    public struct Options: Sendable {
        /// `PRAGMA page_size`; only takes effect before the first table is created.
        public var pageSize: Int? = 1024
        /// `PRAGMA journal_mode=WAL`.
        public var writeAheadLog = true
        /// How long a statement waits for another connection's lock (`sqlite3_busy_timeout`).
        public var busyTimeoutMilliseconds: Int32 = 5000
        /// Whether closing the last connection copies the WAL into the database file
        /// (`SQLITE_DBCONFIG_NO_CKPT_ON_CLOSE` when false). Leaving the WAL for the next
        /// open spares the card the page copies and fsyncs of a checkpoint at every stop;
        /// committed transactions in the WAL are as safe as in the main file.
        public var checkpointOnClose = true
        public init() {}
    }

    /// The database file.
    public let path: String
    private let handle: OpaquePointer
    private let ownerThread = pthread_self()

    /// Transactions committed through `transaction(durable:_:)`.
    public private(set) var commitCount = 0
    /// Of those, the ones committed with `synchronous=FULL`, i.e. fsync'd to the device.
    public private(set) var durableCommitCount = 0

    /// Opens (and with `.create`, creates) the database at `path` (`sqlite3_open_v2`), sets
    /// the busy timeout, page size, WAL and `synchronous=NORMAL`. A file that is not a
    /// database fails here with `SQLITE_NOTADB` (the pragmas read the header).
    public init(
        path: String, flags: OpenFlags = [.readWrite, .create], options: Options = Options()
    ) throws(SQLiteError) {
        var raw: OpaquePointer?
        let rc = sqlite3_open_v2(path, &raw, flags.rawValue | SQLITE_OPEN_NOMUTEX, nil)
        guard rc == SQLITE_OK, let raw else {
            // sqlite3_open_v2 docs: "Whether or not an error occurs when it is opened,
            // resources associated with the database connection handle should be released
            // by passing it to sqlite3_close() when it is no longer required."
            let message = raw.map { String(cString: sqlite3_errmsg($0)) } ?? String(cString: sqlite3_errstr(rc))
            sqlite3_close(raw)
            throw SQLiteError(code: rc, message: message, path: path)
        }
        self.path = path
        self.handle = raw
        sqlite3_extended_result_codes(raw, 1)
        sqlite3_busy_timeout(raw, options.busyTimeoutMilliseconds)
        if !options.checkpointOnClose {
            let rc = jb_sqlite_no_checkpoint_on_close(raw)
            if rc != SQLITE_OK { throw error(rc, sql: "SQLITE_DBCONFIG_NO_CKPT_ON_CLOSE") }
        }
        if let pageSize = options.pageSize { try execute("PRAGMA page_size=\(pageSize)") }
        // Switching a new file to WAL writes its header page through a rollback journal, with
        // its fsyncs (once per database). They are needed: the main file is written again only
        // by a checkpoint, and SQLite deletes the WAL of a main file that comes back empty
        // after a power cut, every durable commit in it included.
        if options.writeAheadLog { try execute("PRAGMA journal_mode=WAL") }
        try execute("PRAGMA synchronous=NORMAL")
    }

    deinit {
        // Every Statement retains its Connection, so no statement is left unfinalized here
        // (sqlite3_close_v2 would otherwise leave "an unusable zombie"). An open transaction
        // is rolled back by the close.
        sqlite3_close_v2(handle)
    }

    /// Runs one or more statements that return no rows (`sqlite3_exec`).
    public func execute(_ sql: String) throws(SQLiteError) {
        assertOwnerThread()
        let rc = sqlite3_exec(handle, sql, nil, nil, nil)
        if rc != SQLITE_OK { throw error(rc, sql: sql) }
    }

    /// Compiles one statement (`sqlite3_prepare_v2`).
    public func prepare(_ sql: String) throws(SQLiteError) -> Statement {
        assertOwnerThread()
        var stmt: OpaquePointer?
        let rc = sqlite3_prepare_v2(handle, sql, -1, &stmt, nil)
        guard rc == SQLITE_OK, let stmt else {
            sqlite3_finalize(stmt)
            throw error(rc == SQLITE_OK ? SQLITE_MISUSE : rc, sql: sql)
        }
        return Statement(connection: self, handle: stmt, sql: sql)
    }

    /// Runs `sql` and returns the first column of the first row as an integer (pragmas, counts).
    public func scalarInt(_ sql: String) throws(SQLiteError) -> Int64? {
        let statement = try prepare(sql)
        guard try statement.step() else { return nil }
        return statement.optionalInt64(at: 0)
    }

    /// Runs `sql` and returns the first column of every row as text.
    public func strings(_ sql: String) throws(SQLiteError) -> [String] {
        let statement = try prepare(sql)
        var result: [String] = []
        while try statement.step() { result.append(statement.string(at: 0) ?? "") }
        return result
    }

    /// The rowid of the last successful INSERT (`sqlite3_last_insert_rowid`).
    public var lastInsertRowID: Int64 { sqlite3_last_insert_rowid(handle) }

    /// Rows changed by the last statement (`sqlite3_changes`).
    public var changes: Int { Int(sqlite3_changes(handle)) }

    /// True while a transaction is open (`sqlite3_get_autocommit` returns 0).
    public var isInTransaction: Bool { sqlite3_get_autocommit(handle) == 0 }

    /// Runs `body` in a write transaction and commits it; rolls back and rethrows if `body`
    /// throws. `BEGIN IMMEDIATE` takes the write lock up front, so waiting for another
    /// writer is covered by the busy timeout. A durable transaction commits with
    /// `synchronous=FULL`: in WAL mode "the WAL file is synchronized after each transaction
    /// commit", so it survives a power cut. Other commits use `synchronous=NORMAL`:
    /// consistent after a crash or power cut, but the last ones may be lost on power loss.
    public func transaction<T>(durable: Bool = false, _ body: () throws -> T) throws -> T {
        assertOwnerThread()
        precondition(!isInTransaction, "nested transaction")
        if durable { try execute("PRAGMA synchronous=FULL") }
        defer { if durable { try? execute("PRAGMA synchronous=NORMAL") } }
        try execute("BEGIN IMMEDIATE")
        let result: T
        do {
            result = try body()
            try execute("COMMIT")
        } catch {
            if isInTransaction { try? execute("ROLLBACK") }
            throw error
        }
        commitCount += 1
        if durable { durableCommitCount += 1 }
        return result
    }

    func error(_ code: Int32, sql: String?) -> SQLiteError {
        SQLiteError(code: code, message: String(cString: sqlite3_errmsg(handle)), sql: sql, path: path)
    }

    func assertOwnerThread() {
        assert(pthread_equal(ownerThread, pthread_self()) != 0, "Connection to \(path) used from another thread")
    }
}
