import Foundation
import HeraldStore
import Logging
import NIOCore
import NIOPosix
import PostgresNIO
import Synchronization

/// `herald serve`'s hold on its database: one single node, or any number of cluster nodes, never both
/// (docs/postgresql.md, "One server per database").
///
/// A session-level advisory lock (``key``) on a connection of its own, held for the store's life: a single node takes
/// it exclusively (`pg_try_advisory_lock`), a cluster node shared (`pg_try_advisory_lock_shared`). The session's
/// `application_name` names the holder, so that a refusal can say who holds it. PostgreSQL releases the lock when the
/// session ends, however the process ends (a crash or `kill -9` included); the session asks the server to notice a
/// vanished host within about 30 s (TCP keepalives, `tcp_user_timeout`) and never to end it for idleness. When the
/// connection is lost while the server runs (the database restarted, or the connection stopped answering), the lock
/// is taken again on a new one.
final class ServeLock: Sendable {
    /// The advisory lock's key ("HERALDSV" in ASCII).
    static let key: Int64 = 0x4845_5241_4C44_5356
    /// What precedes the holder's name in its session's `application_name`.
    static let singlePrefix = "herald serve "
    static let clusterPrefix = "herald node "

    private struct State {
        var connection: PostgresConnection?
        var keeper: Task<Void, Never>?
        var closed = false
    }

    private let configuration: PostgresStore.Configuration
    private let logger: Logger
    private let state = Mutex(State())

    private init(configuration: PostgresStore.Configuration, logger: Logger) {
        self.configuration = configuration
        self.logger = logger
    }

    /// Takes the lock for a single node or, with ``PostgresStore/Configuration/cluster``, a cluster node, and keeps it
    /// until ``close()``.
    ///
    /// - Throws: ``ServeLockRefusal`` naming the holders when a server of the other kind, or another single node, holds
    ///   it; a ``StoreError`` when the database cannot be reached.
    static func acquire(configuration: PostgresStore.Configuration, logger: Logger) async throws -> ServeLock {
        let connection = try await take(configuration: configuration, logger: logger)
        let lock = ServeLock(configuration: configuration, logger: logger)
        lock.state.withLock { state in
            state.connection = connection
            state.keeper = Task { await lock.keep(connection) }
        }
        return lock
    }

    /// Releases the lock (closes its connection).
    func close() async {
        let (connection, keeper) = state.withLock { state in
            state.closed = true
            defer { state.connection = nil }
            return (state.connection, state.keeper)
        }
        keeper?.cancel()
        try? await connection?.close()
        await keeper?.value
    }

    /// How often the held connection is asked whether it still answers: a connection the network cut without a word
    /// never reports its close, while the server ends the session, and the lock with it.
    static let probeInterval: Duration = .seconds(5)

    /// Watches the held connection (closed? each second; answering? each ``probeInterval``); once it is lost, and
    /// unless the lock was closed, takes the lock again on a new connection, every second until it succeeds.
    private func keep(_ first: PostgresConnection) async {
        var connection = first
        while true {
            var waited: Duration = .zero
            while !connection.isClosed {
                do { try await Task.sleep(for: .seconds(1)) } catch { return }
                waited += .seconds(1)
                guard waited >= Self.probeInterval else { continue }
                waited = .zero
                let probed = connection
                let answered = try? await OperationDeadline.run(timeout: Self.probeInterval) {
                    try await probed.query("SELECT 1", logger: self.logger).collect().count
                }
                if answered == nil { try? await connection.close() }
            }
            if state.withLock({ $0.closed }) { return }
            logger.warning("Lost the database's serve lock with its connection; taking it again")
            var refused = false
            while true {
                do { try await Task.sleep(for: .seconds(1)) } catch { return }
                do {
                    // Held by the state as soon as it is open, so that close() ends a query that hangs on it.
                    connection = try await Self.take(configuration: configuration, logger: logger) { opened in
                        self.state.withLock { state in
                            if state.closed { return false }
                            state.connection = opened
                            return true
                        }
                    }
                    logger.notice("Took the database's serve lock again")
                    break
                } catch let refusal as ServeLockRefusal {
                    // Another server started while the connection was down: say so once, and keep trying.
                    if !refused { logger.error("Cannot take the database's serve lock again", metadata: ["store.error": "\(refusal)"]) }
                    refused = true
                } catch {
                    if state.withLock({ $0.closed }) { return }
                    // The database is still away: the next try, a second later.
                }
            }
        }
    }

    /// A new connection holding the lock. `opened` is told the connection before anything is asked on it; when it
    /// answers `false` (the lock was closed meanwhile), the connection is closed and nothing is taken.
    private static func take(
        configuration: PostgresStore.Configuration,
        logger: Logger,
        opened: @Sendable (PostgresConnection) -> Bool = { _ in true }
    ) async throws -> PostgresConnection {
        let connection: PostgresConnection
        do {
            connection = try await PostgresConnection.connect(
                on: MultiThreadedEventLoopGroup.singleton.any(),
                configuration: try configuration.connectionConfiguration(),
                id: 1,
                logger: logger
            )
        } catch {
            throw PostgresStore.storeError(error)
        }
        guard opened(connection) else {
            try? await connection.close()
            throw StoreError.shutDown
        }
        do {
            try await prepare(connection, configuration: configuration, logger: logger)
            let cluster = configuration.cluster != nil
            // A holder that ended between the refusal and the look-up leaves no one to name: try again.
            for _ in 0..<3 {
                let taken =
                    cluster
                    ? try await connection.query("SELECT pg_try_advisory_lock_shared(\(key))", logger: logger).collect()
                    : try await connection.query("SELECT pg_try_advisory_lock(\(key))", logger: logger).collect()
                if try taken.first?.decode(Bool.self) == true { return connection }
                let holders = try await holders(on: connection, logger: logger)
                guard holders.isEmpty else {
                    throw ServeLockRefusal(cluster: cluster, holders: holders, database: configuration.redactedDescription)
                }
            }
            throw StoreError.databaseBusy.with(detail: "the serve lock is held by sessions that end before they can be named")
        } catch let refusal as ServeLockRefusal {
            try? await connection.close()
            throw refusal
        } catch {
            try? await connection.close()
            throw PostgresStore.storeError(error)
        }
    }

    /// Names the session and makes PostgreSQL notice a vanished holder: keepalives after 10 s of silence, 5 s apart,
    /// 3 unanswered ones, or 30 s of unacknowledged data, end it (TCP only); an `idle_session_timeout` would end it
    /// while it holds the lock. The settings of newer versions than the server's are skipped.
    private static func prepare(_ connection: PostgresConnection, configuration: PostgresStore.Configuration, logger: Logger) async throws {
        let name = String(applicationName(configuration).prefix(63))
        try await connection.query(
            """
            SELECT set_config('application_name', \(name), false), set_config('tcp_keepalives_idle', '10', false),
                set_config('tcp_keepalives_interval', '5', false), set_config('tcp_keepalives_count', '3', false)
            """,
            logger: logger
        )
        _ = try? await connection.query("SELECT set_config('tcp_user_timeout', '30000', false)", logger: logger)
        _ = try? await connection.query("SELECT set_config('idle_session_timeout', '0', false)", logger: logger)
    }

    /// The holder's name in `application_name`: the node id of a cluster node, the pid and host of a single node
    /// (the host clipped to 32 characters, so that the whole fits PostgreSQL's 63).
    static func applicationName(_ configuration: PostgresStore.Configuration) -> String {
        if let cluster = configuration.cluster { return clusterPrefix + cluster.nodeID }
        let host = ProcessInfo.processInfo.hostName
        return singlePrefix + "pid \(ProcessInfo.processInfo.processIdentifier) on \(host.prefix(32))"
    }

    /// The sessions holding the lock in this database, oldest first.
    private static func holders(on connection: PostgresConnection, logger: Logger) async throws -> [ServeLockRefusal.Holder] {
        let rows = try await connection.query(
            """
            SELECT a.application_name, l.mode = 'ExclusiveLock', l.pid FROM pg_locks AS l JOIN pg_stat_activity AS a ON a.pid = l.pid
            WHERE l.locktype = 'advisory' AND l.granted AND l.objsubid = 1
                AND l.database = (SELECT oid FROM pg_database WHERE datname = current_database())
                AND l.classid::bigint = \(key >> 32) AND l.objid::bigint = \(key & 0xFFFF_FFFF)
            ORDER BY a.backend_start, l.pid
            """,
            logger: logger
        ).collect()
        return try rows.map { row in
            let (name, exclusive, pid) = try row.decode((String?, Bool, Int32).self)
            return ServeLockRefusal.Holder(applicationName: name ?? "", exclusive: exclusive, backendPID: pid)
        }
    }
}
