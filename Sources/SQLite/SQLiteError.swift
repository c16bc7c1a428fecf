import CSQLite

/// A failed SQLite call: the result code, SQLite's own message (`sqlite3_errmsg`), the SQL
/// that was running, if any, and the database file it was about. Every wrapper call that
/// fails throws exactly one of these.
public struct SQLiteError: Error, Equatable, CustomStringConvertible, Sendable {
    /// The (extended) result code, e.g. `SQLITE_CORRUPT` (11) or `SQLITE_NOTADB` (26).
    public var code: Int32
    /// The text of `sqlite3_errmsg` at the time of the failure.
    public var message: String
    /// The statement that failed, when one was involved.
    public var sql: String?
    /// The database file.
    public var path: String

    public init(code: Int32, message: String, sql: String? = nil, path: String) {
        self.code = code
        self.message = message
        self.sql = sql
        self.path = path
    }

    /// The primary result code (the low byte of an extended code).
    public var primaryCode: Int32 { code & 0xff }

    /// True for the codes that mean the file itself is not a usable database
    /// (`SQLITE_CORRUPT`, `SQLITE_NOTADB`), as opposed to a locked, missing or unwritable one.
    public var isDamagedFile: Bool { primaryCode == SQLITE_CORRUPT || primaryCode == SQLITE_NOTADB }

    public var description: String {
        let codeName = String(cString: sqlite3_errstr(code))
        var text = "\(path): SQLite error \(code) (\(codeName)): \(message)"
        if let sql { text += " [while running: \(sql)]" }
        return text
    }
}
