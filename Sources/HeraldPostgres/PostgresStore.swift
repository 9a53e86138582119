import Foundation
import HeraldCore
import HeraldStore
import Logging
import NIOCore
import NIOPosix
import PostgresNIO
import Synchronization

/// The store on PostgreSQL: what ``SQLiteStore`` keeps, in one database that several Herald nodes may share
/// (docs/postgresql.md).
///
/// Rules for callers, as for every ``NotificationStore``:
/// - Accepted notifications go through group commit (``enqueue(_:completion:)``): one transaction per batch, the batch
///   inserted by one multi-row statement; the completion runs after `COMMIT`.
/// - ``lookup(_:)``, ``signingKey(keyID:)`` and ``appTeam(bundleID:)`` answer from memory; a miss or a cache older than
///   the refresh interval asks the database on a connection of its own, with a deadline.
/// - When the database cannot be reached, calls fail with ``StoreError/unavailable`` (the gateway answers `503`), and
///   nothing that failed was kept; the connection pool reconnects by itself.
/// - Call ``shutdown()`` before dropping the store, so that queued notifications are committed.
///
/// A reused `apns-id` replaces the older notification as in ``SQLiteStore``: the older row is deleted, the newer gets a
/// new sequence, and the `apns-id`'s trace records `replaced` (`"reason": "duplicate-apns-id"`) before the new
/// `accepted`.
public final class PostgresStore: NotificationStore, RegistryCaching {
    typealias Completion = @Sendable (Result<Int64, StoreError>) -> Void
    typealias CommitState = GroupCommitStateMachine<PendingNotification, CheckedContinuation<Void, Never>>

    /// A notification waiting for group commit, and who to tell.
    struct PendingNotification: Sendable {
        var notification: AcceptedNotification
        var completion: Completion
    }

    /// The configuration the store was opened with.
    public let configuration: Configuration
    let client: PostgresClient
    let clock: any WallClock
    let logger: Logger
    let commitState: Mutex<CommitState>
    package let registry = Mutex(RegistryCache())
    /// The registry's own connection, for the synchronous hot-path lookups (``RegistryConnection``).
    let registryConnection: RegistryConnection
    package var registryClock: any WallClock { clock }
    package var registryRefreshIntervalMilliseconds: Int64 { configuration.registryRefreshIntervalMilliseconds }
    package var registryLogger: Logger { logger }
    /// The store's two long-running tasks, from ``open(configuration:clock:logger:)`` to ``shutdown()``, which awaits
    /// them: the connection pool's `run()` (postgres-nio's pool works only while it runs), and group commit's writer,
    /// woken through ``writerWakeups`` each time the state machine says to start it.
    private let clientTask: Task<Void, Never>
    private let writerTask = Mutex<Task<Void, Never>?>(nil)
    let writerWakeups: AsyncStream<Void>.Continuation
    /// A cluster node's hand-off listeners and first heartbeat (PostgresStore+Cluster.swift).
    let clusterState = Mutex(ClusterState())
    private let wakeups: AsyncStream<Void>
    /// `herald serve`'s hold on the database, from ``open(configuration:clock:logger:)`` to ``shutdown()``
    /// (``Configuration/holdsServeLock``).
    private let serveLock: ServeLock?

    private init(configuration: Configuration, clock: any WallClock, logger: Logger, serveLock: ServeLock?) throws {
        self.configuration = configuration
        self.serveLock = serveLock
        self.clock = clock
        self.logger = logger
        let connection = try configuration.clientConfiguration()
        self.client = PostgresClient(configuration: connection, backgroundLogger: logger)
        self.commitState = Mutex(
            CommitState(
                maximumBatchSize: configuration.maximumBatchSize,
                maximumPending: configuration.maximumPendingNotifications
            )
        )
        self.registryConnection = RegistryConnection(
            configuration: try configuration.connectionConfiguration(),
            timeout: configuration.registryQueryTimeout,
            logger: logger
        )
        let client = self.client
        self.clientTask = Task { await client.run() }
        (self.wakeups, self.writerWakeups) = AsyncStream<Void>.makeStream()
    }

    /// Connects to the database, applies the migrations it lacks, and loads the registry.
    ///
    /// Fails with ``StoreError/unavailable`` when the database cannot be reached, ``StoreError/newerSchema`` when a
    /// newer Herald migrated it, ``ServeLockRefusal`` when ``Configuration/holdsServeLock`` and another server holds
    /// the database.
    public static func open(
        configuration: Configuration,
        clock: any WallClock = SystemWallClock(),
        logger: Logger = Logger(label: "herald.store")
    ) async throws -> PostgresStore {
        // First: a refused server touches nothing, not even the migrations.
        let serveLock = configuration.holdsServeLock ? try await ServeLock.acquire(configuration: configuration, logger: logger) : nil
        let store: PostgresStore
        do {
            store = try PostgresStore(configuration: configuration, clock: clock, logger: logger, serveLock: serveLock)
        } catch {
            await serveLock?.close()
            throw error
        }
        let wakeups = store.wakeups
        store.writerTask.withLock { task in
            task = Task {
                for await _ in wakeups { await store.writeBatches() }
            }
        }
        do {
            try await store.migrate()
            try store.refreshRegistry()
        } catch {
            await store.close()
            throw Self.storeError(error)
        }
        logger.info("Opened the store", metadata: ["store.database": "\(configuration.redactedDescription)"])
        return store
    }

    /// Applies the migrations the database lacks, each in its own transaction, under the migration lock.
    ///
    /// On a connection of its own (not the pool's, whose `run()` may not have started yet).
    private func migrate() async throws {
        let connection = try await PostgresConnection.connect(
            on: MultiThreadedEventLoopGroup.singleton.any(),
            configuration: try configuration.connectionConfiguration(),
            id: 0,
            logger: logger
        )
        do {
            try await migrate(on: connection)
            try await connection.close()
        } catch {
            try? await connection.close()
            throw error
        }
    }

    /// Under a session-level advisory lock (so that nodes starting together migrate one after the other, the
    /// bookkeeping table's creation included), each missing migration in a transaction with its `herald_migration` row.
    private func migrate(on connection: PostgresConnection) async throws {
        try await connection.query("SELECT pg_advisory_lock(\(PostgresSchema.migrationLockKey))", logger: logger)
        try await connection.query(PostgresQuery(unsafeSQL: PostgresSchema.bookkeeping), logger: logger)
        var applied: Set<String> = []
        for try await name in try await connection.query("SELECT name FROM herald_migration", logger: logger).decode(String.self) {
            applied.insert(name)
        }
        let known = Set(PostgresSchema.migrations.map(\.name))
        if !applied.isSubset(of: known) {
            throw StoreError.newerSchema.with(detail: "migrations \(applied.subtracting(known).sorted().joined(separator: ", "))")
        }
        for migration in PostgresSchema.migrations where !applied.contains(migration.name) {
            logger.notice("Migrating the store", metadata: ["store.migration": "\(migration.name)"])
            try await connection.withTransaction(logger: logger) { connection in
                for statement in migration.statements {
                    try await connection.query(PostgresQuery(unsafeSQL: statement), logger: self.logger)
                }
                try await connection.query("INSERT INTO herald_migration (name) VALUES (\(migration.name))", logger: self.logger)
            }
        }
        // Closing the connection releases the lock too; said here for a reader.
        try await connection.query("SELECT pg_advisory_unlock(\(PostgresSchema.migrationLockKey))", logger: logger)
    }

    /// Refuses new notifications, waits for the queued ones to commit, then closes the connections.
    public func shutdown() async {
        await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
            switch commitState.withLock({ $0.shutdown(continuation) }) {
            case .resumeNow: continuation.resume()
            case .wait: break
            }
        }
        await close()
        logger.info("Closed the store", metadata: ["store.database": "\(configuration.redactedDescription)"])
    }

    private func close() async {
        // The writer has stopped (shutdown waited for it to drain the queue): end its loop, then the pool.
        writerWakeups.finish()
        await writerTask.withLock { $0 }?.value
        await closeCluster()
        clientTask.cancel()
        await clientTask.value
        await registryConnection.close()
        // Last: another server may start once everything this one wrote is in.
        await serveLock?.close()
    }

    /// Fails with ``StoreError/shutDown`` once shutdown was requested.
    package func checkOpen() throws {
        if commitState.withLock({ $0.isShuttingDownOrClosed }) { throw StoreError.shutDown }
    }

    /// The ``StoreError`` for any error PostgreSQL or the connection throws.
    static func storeError(_ error: any Error) -> StoreError {
        if let error = error as? StoreError { return error }
        if let error = error as? PostgresTransactionError {
            if let inner = error.closureError ?? error.beginError ?? error.commitError { return storeError(inner) }
            return StoreError.database.with(detail: "\(error)")
        }
        if error is CancellationError { return StoreError.unavailable.with(detail: "cancelled") }
        guard let error = error as? PSQLError else { return StoreError.database.with(detail: "\(error)") }
        guard let state = error.serverInfo?[.sqlState] else {
            // No answer from a server: the connection failed, closed, or the pool is closed.
            return StoreError.unavailable.with(detail: connectionCause(error))
        }
        let message = error.serverInfo?[.message] ?? state
        switch state {
        case "23502", "23503", "23505", "23514", "22001", "22003", "22P02", "22023": return StoreError.invalidRecord.with(detail: message)
        case "40001", "40P01", "55P03": return StoreError.databaseBusy.with(detail: message)
        case "53100": return StoreError.storeFull.with(detail: message)
        case "57P01", "57P02", "57P03", "08000", "08003", "08006", "08001", "08004":
            return StoreError.unavailable.with(detail: message)
        default: return StoreError.database.with(detail: "\(state): \(message)")
        }
    }

    /// Why a connection failed, in the system's words ("connection refused"), else PostgresNIO's code
    /// (`connectionError` alone said neither where nor why).
    static func connectionCause(_ error: PSQLError) -> String {
        var cause = error.underlying
        while let current = cause {
            switch current {
            case let io as IOError:
                let text = String(cString: strerror(io.errnoCode))
                return text.prefix(1).lowercased() + text.dropFirst()
            case let connection as NIOConnectionError:
                cause = connection.connectionErrors.first?.error ?? connection.dnsAAAAError ?? connection.dnsAError
                if cause == nil { return "no address for \(connection.host)" }
            case let inner as PSQLError:
                cause = inner.underlying
            case SocketAddressError.unknown(let host, _):
                return "no such host \(host)"
            case let unknown as SocketAddressError.UnknownHost:
                return "no such host \(unknown.host) (\(unknown.errorDescription.prefix(1).lowercased() + unknown.errorDescription.dropFirst()))"
            case is ChannelError:
                return "the connection failed (\(current))"
            default:
                return "\(current)"
            }
        }
        return "\(error.code)"
    }

    /// Runs `body` on a pooled connection, within the operation timeout, and maps its errors to ``StoreError``.
    func withConnection<T: Sendable>(_ body: @escaping @Sendable (PostgresConnection) async throws -> T) async throws -> T {
        try checkOpen()
        let client = self.client
        return try await withinOperationTimeout {
            try await client.withConnection { try await body($0) }
        }
    }

    /// Runs `body` in one transaction on a pooled connection, within the operation timeout, and maps its errors to
    /// ``StoreError``. Group commit passes `checkingOpen: false`: it drains the queue while the store shuts down.
    func withTransaction<T: Sendable>(
        checkingOpen: Bool = true,
        _ body: @escaping @Sendable (PostgresConnection) async throws -> T
    ) async throws -> T {
        if checkingOpen { try checkOpen() }
        let client = self.client
        let logger = self.logger
        return try await withinOperationTimeout {
            try await client.withTransaction(logger: logger) { try await body($0) }
        }
    }

    /// Runs `body`, failing with ``StoreError/unavailable`` when it takes longer than
    /// ``Configuration/operationTimeout`` (the pool waits for a connection without end while the database is down:
    /// callers get an answer instead — the gateway a `503`). Errors are mapped to ``StoreError``.
    ///
    /// A transaction whose `COMMIT` reached the database just before the deadline may have been kept although the
    /// caller was told it failed: a provider retries it (the same `apns-id` replaces it), and the delivery engine finds
    /// it at its next start (docs/postgresql.md, "When the database fails").
    func withinOperationTimeout<T: Sendable>(_ body: @escaping @Sendable () async throws -> T) async throws -> T {
        let timeout = configuration.operationTimeout
        do {
            return try await OperationDeadline.run(timeout: timeout, body)
        } catch {
            throw Self.storeError(error)
        }
    }

    /// The rows of one query, collected.
    func rows(_ query: PostgresQuery, on connection: PostgresConnection) async throws -> [PostgresRow] {
        try await connection.query(query, logger: logger).collect()
    }

    /// The rows of one query on a pooled connection, collected.
    func rows(_ query: PostgresQuery) async throws -> [PostgresRow] {
        try await withConnection { try await self.rows(query, on: $0) }
    }
}
