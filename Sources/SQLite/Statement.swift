import CSQLite

/// One prepared statement: the single owner of its `sqlite3_stmt*`, finalized in `deinit`.
/// It keeps its `Connection` alive and shares that connection's thread affinity.
/// Parameter and column indexes are as in SQLite: parameters from 1, columns from 0.
public final class Statement {
    /// The connection the statement belongs to (retained so it is closed last).
    public let connection: Connection
    /// The SQL text, for error messages.
    public let sql: String
    private let handle: OpaquePointer

    init(connection: Connection, handle: OpaquePointer, sql: String) {
        self.connection = connection
        self.handle = handle
        self.sql = sql
    }

    deinit { sqlite3_finalize(handle) }

    // MARK: binding (sqlite3_bind_*)

    /// Binds an integer to parameter `index` (from 1).
    public func bind(_ value: Int64, at index: Int32) throws(SQLiteError) {
        try check(sqlite3_bind_int64(handle, index, value))
    }

    /// Binds an integer to parameter `index` (from 1).
    public func bind(_ value: Int, at index: Int32) throws(SQLiteError) {
        try bind(Int64(value), at: index)
    }

    /// Binds a floating-point value to parameter `index` (from 1).
    public func bind(_ value: Double, at index: Int32) throws(SQLiteError) {
        try check(sqlite3_bind_double(handle, index, value))
    }

    /// Binds text; SQLite copies it (`SQLITE_TRANSIENT`).
    public func bind(_ value: String, at index: Int32) throws(SQLiteError) {
        try check(sqlite3_bind_text(handle, index, value, -1, jb_sqlite_transient()))
    }

    /// Binds a blob; SQLite copies it (`SQLITE_TRANSIENT`). An empty array binds a zero-length blob.
    public func bind(_ value: [UInt8], at index: Int32) throws(SQLiteError) {
        let rc = value.withUnsafeBytes { raw in
            if let base = raw.baseAddress {
                return sqlite3_bind_blob(handle, index, base, Int32(raw.count), jb_sqlite_transient())
            }
            return sqlite3_bind_zeroblob(handle, index, 0)
        }
        try check(rc)
    }

    /// Binds NULL to parameter `index` (from 1).
    public func bindNull(at index: Int32) throws(SQLiteError) {
        try check(sqlite3_bind_null(handle, index))
    }

    /// Binds an integer, or NULL for nil.
    public func bind(_ value: Int64?, at index: Int32) throws(SQLiteError) {
        if let value { try bind(value, at: index) } else { try bindNull(at: index) }
    }

    /// Binds an integer, or NULL for nil.
    public func bind(_ value: Int?, at index: Int32) throws(SQLiteError) {
        if let value { try bind(Int64(value), at: index) } else { try bindNull(at: index) }
    }

    /// Binds text, or NULL for nil.
    public func bind(_ value: String?, at index: Int32) throws(SQLiteError) {
        if let value { try bind(value, at: index) } else { try bindNull(at: index) }
    }

    /// Binds a blob, or NULL for nil.
    public func bind(_ value: [UInt8]?, at index: Int32) throws(SQLiteError) {
        if let value { try bind(value, at: index) } else { try bindNull(at: index) }
    }

    // MARK: running

    /// Advances to the next row (`sqlite3_step`): true when a row is available, false when
    /// the statement is done.
    public func step() throws(SQLiteError) -> Bool {
        connection.assertOwnerThread()
        let rc = sqlite3_step(handle)
        switch rc {
        case SQLITE_ROW: return true
        case SQLITE_DONE: return false
        default:
            // With sqlite3_prepare_v2 "the more specific error code is returned directly by
            // sqlite3_step()"; reset so the statement can be run again.
            let error = connection.error(rc, sql: sql)
            sqlite3_reset(handle)
            throw error
        }
    }

    /// Steps until done (INSERT/UPDATE/DELETE), then resets the statement and its bindings.
    public func run() throws(SQLiteError) {
        while try step() {}
        reset()
    }

    /// Rewinds the statement and clears its bindings (`sqlite3_reset`, `sqlite3_clear_bindings`).
    public func reset() {
        sqlite3_reset(handle)
        sqlite3_clear_bindings(handle)
    }

    // MARK: columns (sqlite3_column_*), valid after step() returned true

    /// True when the column (from 0) of the current row is NULL.
    public func isNull(at column: Int32) -> Bool { sqlite3_column_type(handle, column) == SQLITE_NULL }

    /// The column as an integer (0 for NULL).
    public func int64(at column: Int32) -> Int64 { sqlite3_column_int64(handle, column) }

    /// The column as an integer (0 for NULL).
    public func int(at column: Int32) -> Int { Int(sqlite3_column_int64(handle, column)) }

    /// The column as a floating-point value (0 for NULL).
    public func double(at column: Int32) -> Double { sqlite3_column_double(handle, column) }

    /// The column as an integer, nil for NULL.
    public func optionalInt64(at column: Int32) -> Int64? { isNull(at: column) ? nil : int64(at: column) }

    /// The column as an integer, nil for NULL.
    public func optionalInt(at column: Int32) -> Int? { isNull(at: column) ? nil : int(at: column) }

    /// Text of a column, nil for NULL.
    public func string(at column: Int32) -> String? {
        guard let text = sqlite3_column_text(handle, column) else { return nil }
        let count = Int(sqlite3_column_bytes(handle, column))
        return String(decoding: UnsafeBufferPointer(start: text, count: count), as: UTF8.self)
    }

    /// Bytes of a blob column, nil for NULL.
    public func blob(at column: Int32) -> [UInt8]? {
        if isNull(at: column) { return nil }
        // Docs: call sqlite3_column_blob() first, then sqlite3_column_bytes() for its size.
        let pointer = sqlite3_column_blob(handle, column)
        let count = Int(sqlite3_column_bytes(handle, column))
        guard let pointer, count > 0 else { return [] }
        return Array(UnsafeRawBufferPointer(start: pointer, count: count))
    }

    private func check(_ rc: Int32) throws(SQLiteError) {
        if rc != SQLITE_OK { throw connection.error(rc, sql: sql) }
    }
}
