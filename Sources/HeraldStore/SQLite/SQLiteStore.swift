import CHeraldSQLite
import Foundation
import GRDB
import GRDBSQLite
import HeraldCore
import Logging
import Synchronization

/// The embedded store: one SQLite file, `<dataDirectory>/herald.sqlite`, in WAL mode.
///
/// Rules for callers:
/// - Open one `SQLiteStore` per file per process (one connection pool, as GRDB advises). Other
///   processes — the `herald` CLI while the server runs — may open the same file: writes wait for each
///   other up to the busy timeout, and the token and key caches notice their changes.
/// - Accepted notifications go through group commit (``enqueue(_:completion:)``); every other write is a
///   short transaction of its own.
/// - Call ``shutdown()`` before dropping the store, so that queued notifications are committed.
///
/// A provider that sends an `apns-id` that is already stored: the newer notification replaces the older
/// one (the old row is deleted, the new one gets a new sequence number), and the trace of that `apns-id`
/// records a `replaced` event (`"reason": "duplicate-apns-id"`) before the new `accepted`. Why: APNs does
/// not reject a reused `apns-id` (spec §A.2 only requires the UUID form), and keeping the newest matches its
/// "the latest notification is stored" rule (spec §A.10); a reused id must never fail the other
/// notifications committed in the same transaction.
public final class SQLiteStore: NotificationStore, RegistryCaching {
    typealias Completion = @Sendable (Result<Int64, StoreError>) -> Void
    typealias CommitState = GroupCommitStateMachine<PendingNotification, CheckedContinuation<Void, Never>>

    /// A notification waiting for group commit, and who to tell.
    struct PendingNotification: Sendable {
        var notification: AcceptedNotification
        var completion: Completion
    }

    /// The configuration the store was opened with.
    public let configuration: Configuration
    let pool: DatabasePool
    let clock: any WallClock
    let logger: Logger
    let commitState: Mutex<CommitState>
    let commitStatistics = Mutex(GroupCommitStatistics())
    package let registry = Mutex(RegistryCache())
    /// The disk budget in pages, `nil` without one.
    public let budget: StoreBudget?
    package var registryClock: any WallClock { clock }
    package var registryRefreshIntervalMilliseconds: Int64 { configuration.registryRefreshIntervalMilliseconds }
    package var registryLogger: Logger { logger }

    /// Opens (creating when needed) the database in `configuration.dataDirectory` and migrates it.
    ///
    /// Fails with ``StoreError/newerSchema`` when a newer Herald migrated the file, and with
    /// ``StoreError/database`` when the folder or file cannot be created or opened.
    /// - Parameters:
    ///   - clock: The time used for registration times and cache freshness; tests pass a manual clock.
    ///   - logger: Where the store logs (at info level and below).
    public init(
        configuration: Configuration,
        clock: any WallClock = SystemWallClock(),
        logger: Logger = Logger(label: "herald.store")
    ) throws {
        Self.configureSQLite()
        self.configuration = configuration
        self.clock = clock
        self.logger = logger
        self.commitState = Mutex(
            CommitState(
                maximumBatchSize: configuration.maximumBatchSize,
                maximumPending: configuration.maximumPendingNotifications
            )
        )
        do {
            try FileManager.default.createDirectory(atPath: configuration.dataDirectory, withIntermediateDirectories: true)
        } catch {
            throw StoreError.database.with(detail: "cannot create \(configuration.dataDirectory): \(error)")
        }
        var budget: StoreBudget?
        do {
            pool = try DatabasePool(path: configuration.databasePath, configuration: Self.grdbConfiguration(configuration))
            let migrator = SQLiteSchema.migrator
            if try pool.read({ try migrator.hasBeenSuperseded($0) }) {
                throw StoreError.newerSchema.with(detail: configuration.databasePath)
            }
            // A file made by an older Herald: say so, since a migration that rebuilds a table (v10) takes a while on a
            // large file and the server does not listen meanwhile (docs/delivery.md, "Upgrading to store v10").
            let applied = try pool.read { try migrator.appliedIdentifiers($0) }
            let pending = migrator.migrations.filter { !applied.contains($0) }
            let started = ContinuousClock.now
            let upgrading = !applied.isEmpty && !pending.isEmpty
            if upgrading {
                logger.notice(
                    "Migrating the store",
                    metadata: ["store.path": "\(configuration.databasePath)", "store.migrations": "\(pending.joined(separator: ","))"]
                )
            }
            try migrator.migrate(pool)
            if upgrading {
                logger.notice(
                    "Migrated the store",
                    metadata: ["store.migrations": "\(pending.joined(separator: ","))", "store.duration": "\(started.duration(to: .now))"]
                )
            }
            // DatabasePool puts the file in WAL mode and its writer in `synchronous = NORMAL` after any
            // `prepareDatabase` hook, so the setting is applied here, to the one connection that commits.
            let synchronous = configuration.synchronous.rawValue
            try pool.writeWithoutTransaction { try $0.execute(sql: "PRAGMA synchronous = \(synchronous)") }
            if let bytes = configuration.maximumStoreBytes {
                let pool = self.pool
                let pageSize = try pool.read { try Self.size($0).pageSize }
                let pages = StoreBudget(bytes: max(bytes, 1), pageSize: pageSize)
                // On the writer only: the `herald` CLI's connections are not held to it.
                try pool.writeWithoutTransaction { try $0.execute(sql: "PRAGMA max_page_count = \(pages.hardPages)") }
                budget = pages
            }
        } catch {
            throw Self.storeError(error)
        }
        self.budget = budget
        try refreshRegistry()
        logger.info(
            "Opened the store",
            metadata: ["store.path": "\(configuration.databasePath)", "store.synchronous": "\(configuration.synchronous)"]
        )
    }

    private static func grdbConfiguration(_ configuration: Configuration) -> GRDB.Configuration {
        var grdb = GRDB.Configuration()
        grdb.label = "herald.store"
        // Foreign keys are on by default in GRDB; stated here because the schema relies on them.
        grdb.foreignKeysEnabled = true
        let timeout = configuration.busyTimeout.components
        grdb.busyMode = .timeout(Double(timeout.seconds) + Double(timeout.attoseconds) / 1e18)
        grdb.maximumReaderCount = max(1, configuration.maximumReaderCount)
        // Before the file is put in WAL mode and its first table made: a new file keeps its free pages at the end,
        // so that `PRAGMA incremental_vacuum` can return them to the file system (a no-op for an older file).
        // The writer only: readers are read-only connections.
        grdb.prepareDatabase { db in
            if !db.configuration.readonly {
                try db.execute(sql: "PRAGMA auto_vacuum = INCREMENTAL")
                try registerTraceAppend(db)
            }
        }
        return grdb
    }

    /// Registers `herald_trace_append(trace, accepted_at, at, kind, detail, device)` on `db`: the trace with one line
    /// appended (``TraceText/append(kind:atMilliseconds:detail:to:acceptedAt:device:into:)``); the delivery
    /// journal's statements call it. A trace that is not one, or an argument of the wrong type, fails the statement
    /// (and the journal's batch) rather than being guessed at.
    ///
    /// Why SQLite's C API rather than GRDB's `DatabaseFunction`: GRDB hands a function its arguments as an array of
    /// `DatabaseValue`s, each text copied into a `String`, and copies the `String` it returns; the function is called
    /// once or twice per delivery event, and that wrapping and the trace's decoding into `String`s were 5.8 % of
    /// the server's samples at 4,000 notifications/s offline; reading SQLite's bytes of its arguments in place, 2.1 %
    /// (bench/delivery/profile-2026-11-28.md, "The trace's append").
    static func registerTraceAppend(_ db: Database) throws {
        let code = sqlite3_create_function_v2(
            db.sqliteConnection,
            "herald_trace_append",
            6,
            SQLITE_UTF8 | SQLITE_DETERMINISTIC,
            nil,
            traceAppend,
            nil,
            nil,
            nil
        )
        guard code == SQLITE_OK else {
            throw DatabaseError(resultCode: ResultCode(rawValue: code), message: "cannot register herald_trace_append")
        }
    }

    /// Refuses new notifications, waits for the queued ones to commit, then closes the connection pool.
    public func shutdown() async {
        await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
            switch commitState.withLock({ $0.shutdown(continuation) }) {
            case .resumeNow: continuation.resume()
            case .wait: break
            }
        }
        do {
            try pool.close()
            logger.info("Closed the store", metadata: ["store.path": "\(configuration.databasePath)"])
        } catch {
            logger.info("Could not close the store", metadata: ["store.error": "\(error)"])
        }
    }

    /// Fails with ``StoreError/shutDown`` once shutdown was requested.
    package func checkOpen() throws {
        if commitState.withLock({ $0.isShuttingDownOrClosed }) { throw StoreError.shutDown }
    }

    /// The ``StoreError`` for any error the database layer throws.
    static func storeError(_ error: any Error) -> StoreError {
        if let error = error as? StoreError { return error }
        guard let error = error as? DatabaseError else { return StoreError.database.with(detail: "\(error)") }
        let message = error.message ?? "\(error.resultCode)"
        switch error.resultCode {
        case .SQLITE_BUSY, .SQLITE_LOCKED: return StoreError.databaseBusy.with(detail: message)
        case .SQLITE_CONSTRAINT: return StoreError.invalidRecord.with(detail: message)
        // A full disk, or the file at its `max_page_count` (the budget's hard limit): SQLite rolled back.
        case .SQLITE_FULL: return StoreError.storeFull.with(detail: message)
        default: return StoreError.database.with(detail: message)
        }
    }
}

extension SQLiteStore {
    /// Makes SQLite's process-wide settings, once, before the process opens its first connection: memory
    /// statistics off (each allocation inside SQLite otherwise takes a global mutex; docs/performance.md).
    ///
    /// Every store calls it when it is created; code that opens SQLite some other way first (a test's own
    /// `DatabasePool`) calls it before. Returns whether the settings took.
    @discardableResult
    public static func configureSQLite() -> Bool {
        sqliteConfigured
    }

    /// Whether SQLite keeps its memory statistics in this process (it does not once ``configureSQLite()`` took).
    public static var keepsMemoryStatistics: Bool {
        herald_sqlite_memory_statistics_enabled() != 0
    }
}

/// The result of the one call of `herald_sqlite_disable_memory_statistics` in this process.
private let sqliteConfigured: Bool = herald_sqlite_disable_memory_statistics() == 0

/// `herald_trace_append`'s body (``SQLiteStore/registerTraceAppend(_:)``): text arguments are read as SQLite's bytes,
/// valid until the function returns; the result is copied by SQLite.
private func traceAppend(_ context: OpaquePointer?, _ count: Int32, _ arguments: UnsafeMutablePointer<OpaquePointer?>?) {
    guard let arguments, count == 6 else {
        sqlite3_result_error(context, "herald_trace_append: six arguments are required", -1)
        return
    }
    func text(_ index: Int) -> UnsafeBufferPointer<UInt8>? {
        let value = arguments[index]
        guard sqlite3_value_type(value) == SQLITE_TEXT, let bytes = sqlite3_value_text(value) else { return nil }
        return UnsafeBufferPointer(start: bytes, count: Int(sqlite3_value_bytes(value)))
    }
    func integer(_ index: Int) -> Int64? {
        let value = arguments[index]
        switch sqlite3_value_type(value) {
        case SQLITE_INTEGER: return sqlite3_value_int64(value)
        case SQLITE_FLOAT: return Int64(exactly: sqlite3_value_double(value))
        default: return nil
        }
    }
    guard let trace = text(0), let acceptedAt = integer(1), let at = integer(2), let kind = text(3) else {
        sqlite3_result_error(context, "herald_trace_append: trace, accepted_at, time and kind are required", -1)
        return
    }
    var out: [UInt8] = []
    guard TraceText.append(kind: kind, atMilliseconds: at, detail: text(4), to: trace, acceptedAt: acceptedAt, device: text(5), into: &out)
    else {
        sqlite3_result_error(context, "herald_trace_append: the trace is not in its form", -1)
        return
    }
    // Never empty: the appended line ends in a line feed.
    out.withUnsafeBufferPointer { bytes in
        guard let base = bytes.baseAddress else { return }
        let transient = unsafeBitCast(OpaquePointer(bitPattern: -1), to: sqlite3_destructor_type.self)
        sqlite3_result_text(context, UnsafeRawPointer(base).assumingMemoryBound(to: CChar.self), Int32(bytes.count), transient)
    }
}
