import GRDB
import GRDBSQLite

/// A statement of the store's hot paths, bound and stepped with SQLite's C API on GRDB's prepared statement.
///
/// Why: GRDB's `StatementArguments` box every value in an array of existentials and the payload went through a
/// `Data` copy; on the group commit and the delivery journal, which run several statements per notification, that
/// binding and its retain/release traffic were about a fifth of the writer's time in the gateway benchmark
/// (bench/gateway/results-2026-11-23.md). The statement itself stays GRDB's: prepared once per connection, cached
/// and finalized by GRDB.
///
/// Rules: use it on the writer's queue inside a transaction GRDB opened; bind every parameter before each
/// ``run()`` or ``step()`` (values are copied by SQLite, so nothing must outlive the call). A failed execution
/// leaves the statement reset and ready for the next one, and throws a `DatabaseError` with SQLite's extended
/// result code, as GRDB would.
struct DirectStatement {
    private let statement: Statement
    private let handle: SQLiteStatement
    private let database: Database

    /// Prepares (or reuses, per connection) the statement for `sql`.
    init(_ database: Database, sql: String) throws {
        self.database = database
        statement = try database.cachedStatement(sql: sql)
        handle = statement.sqliteStatement
        // A cached statement may have been left mid-execution by an earlier user of the same SQL.
        sqlite3_reset(handle)
    }

    /// Binds an integer to parameter `index` (1-based).
    func bind(_ value: Int64, at index: Int32) {
        sqlite3_bind_int64(handle, index, value)
    }

    /// Binds an integer, or `NULL` for `nil`.
    func bind(_ value: Int64?, at index: Int32) {
        if let value { bind(value, at: index) } else { sqlite3_bind_null(handle, index) }
    }

    /// Binds text (copied by SQLite).
    func bind(_ value: String, at index: Int32) {
        var value = value
        _ = value.withUTF8 { bytes in
            // An empty buffer may have no address, and a NULL pointer would bind SQL NULL instead of ''.
            if let base = bytes.baseAddress {
                sqlite3_bind_text(handle, index, UnsafeRawPointer(base).assumingMemoryBound(to: CChar.self), Int32(bytes.count), transient)
            } else {
                sqlite3_bind_text(handle, index, "", 0, transient)
            }
        }
    }

    /// Binds text, or `NULL` for `nil`.
    func bind(_ value: String?, at index: Int32) {
        if let value { bind(value, at: index) } else { sqlite3_bind_null(handle, index) }
    }

    /// Binds a blob (copied by SQLite); an empty one is a zero-length blob, not `NULL`.
    func bind(blob bytes: [UInt8], at index: Int32) {
        _ = bytes.withUnsafeBytes { buffer in
            if let base = buffer.baseAddress {
                sqlite3_bind_blob(handle, index, base, Int32(buffer.count), transient)
            } else {
                sqlite3_bind_zeroblob(handle, index, 0)
            }
        }
    }

    /// Runs the statement to its end, then resets it.
    func run() throws {
        while try step() {}
    }

    /// Steps once: `true` with a row to read (``int64(at:)``, ``text(at:)``), `false` when done (the statement is
    /// then reset). Call ``reset()`` to stop reading rows early.
    func step() throws -> Bool {
        let code = sqlite3_step(handle)
        switch code {
        case SQLITE_ROW:
            return true
        case SQLITE_DONE:
            sqlite3_reset(handle)
            return false
        default:
            // The connection has extended result codes on (GRDB sets it), so `code` is the extended one.
            let error = DatabaseError(
                resultCode: ResultCode(rawValue: code),
                message: String(cString: sqlite3_errmsg(database.sqliteConnection)),
                sql: statement.sql
            )
            sqlite3_reset(handle)
            throw error
        }
    }

    /// Ends the current execution, so that the next one starts afresh.
    func reset() {
        sqlite3_reset(handle)
    }

    /// Column `index` (0-based) of the current row as an integer, `nil` when `NULL`.
    func int64(at index: Int32) -> Int64? {
        sqlite3_column_type(handle, index) == SQLITE_NULL ? nil : sqlite3_column_int64(handle, index)
    }

    /// Column `index` (0-based) of the current row as text, `nil` when `NULL`.
    func text(at index: Int32) -> String? {
        guard let bytes = sqlite3_column_text(handle, index) else { return nil }
        let count = Int(sqlite3_column_bytes(handle, index))
        return String(decoding: UnsafeBufferPointer(start: bytes, count: count), as: UTF8.self)
    }
}

/// SQLite's `SQLITE_TRANSIENT`: SQLite copies the bound value before the call returns.
private let transient = unsafeBitCast(OpaquePointer(bitPattern: -1), to: sqlite3_destructor_type.self)
