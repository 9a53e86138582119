import Foundation
import HeraldCore
import HeraldStore
import Logging
import NIOCore
import NIOPosix
import PostgresNIO
import Synchronization

/// A node of a cluster (docs/cluster.md): routes, hand-offs and what waits for this node's tokens.
extension PostgresStore: ClusterStore {
    /// The most sequences one `NOTIFY` carries: its payload holds at most 8000 bytes, and a sequence with its comma
    /// takes at most 20.
    static let sequencesPerNotify = 300
    /// The most rows one sweep reads; the rest come at the next sweep.
    static let maximumSweepRows = 10_000

    /// The cluster settings; a store opened without them is not a cluster node.
    func clusterSettings() throws -> Configuration.Cluster {
        guard let cluster = configuration.cluster else { throw StoreError.invalidRecord.with(detail: "the store is not a cluster node") }
        return cluster
    }

    public var nodeID: String { configuration.cluster?.nodeID ?? "" }

    /// Inside group commit's transaction, after the batch's rows are in: hands each notification whose token is routed
    /// to another live node to that node (`NOTIFY`, one per node and at most ``sequencesPerNotify`` sequences, delivered
    /// only if the transaction commits); for a token no live node holds, traces `stored` (`device-offline`), or expires
    /// it at once when its `apns-expiration` is 0 (`expiration-zero-offline`: never stored, spec §A.10). A token routed
    /// to this node is the local engine's.
    func handOff(_ sequences: [Int64], cluster: Configuration.Cluster, on connection: PostgresConnection) async throws {
        guard !sequences.isEmpty else { return }
        let now = clock.nowMilliseconds()
        let lease = cluster.leaseMilliseconds
        let me = cluster.nodeID
        let channelPrefix = Configuration.Cluster.channelPrefix
        let perNotify = Int64(Self.sequencesPerNotify)
        _ = try await rows(
            """
            WITH b AS (
                SELECT n.seq, n.apns_id, n.expiration, r.node_id
                FROM notification AS n
                LEFT JOIN (token_route AS r JOIN node AS d ON d.id = r.node_id AND d.heartbeat_at > now() - \(lease)::bigint * interval '1 millisecond')
                    ON r.token = n.token
                WHERE n.seq = ANY(\(sequences)::bigint[])
            ),
            zero AS (
                UPDATE notification AS n SET state = 'expired' FROM b
                WHERE n.seq = b.seq AND b.node_id IS NULL AND b.expiration = 0 AND n.state = 'stored'
                RETURNING n.seq
            ),
            traced AS (
                INSERT INTO trace_event (apns_id, at, kind, detail)
                SELECT b.apns_id, \(now), CASE WHEN b.expiration = 0 THEN 'expired' ELSE 'stored' END,
                    (CASE WHEN b.expiration = 0 THEN '{"reason":"expiration-zero-offline"}'
                        WHEN b.expiration IS NULL THEN '{"reason":"device-offline"}'
                        ELSE '{"reason":"device-offline","expiresAt":' || (b.expiration * 1000)::text || '}' END)::json
                FROM b WHERE b.node_id IS NULL ORDER BY b.seq
                RETURNING 1
            )
            SELECT pg_notify(\(channelPrefix) || node_id, string_agg(seq::text, ',' ORDER BY seq))
            FROM (
                SELECT node_id, seq, (row_number() OVER (PARTITION BY node_id ORDER BY seq) - 1) / \(perNotify) AS chunk
                FROM b WHERE b.node_id IS NOT NULL AND b.node_id <> \(me)
            ) AS routed
            GROUP BY node_id, chunk
            """,
            on: connection
        )
    }

    public func claimRoutes(_ tokens: [DeviceToken]) async throws -> [StoredNotification] {
        let cluster = try clusterSettings()
        guard !tokens.isEmpty else { return [] }
        // Each token once: an upsert may not touch a row twice.
        let hex = Array(Set(tokens.map(\.hex))).sorted()
        return try await rows(
            """
            WITH claimed AS (
                INSERT INTO token_route (token, node_id)
                SELECT t, \(cluster.nodeID) FROM unnest(\(hex)::text[]) AS t
                WHERE EXISTS (SELECT 1 FROM device_token AS d WHERE d.token = t)
                ON CONFLICT (token) DO UPDATE SET node_id = EXCLUDED.node_id, since = now()
                RETURNING 1
            )
            SELECT \(unescaped: Self.notificationColumns) FROM notification
            WHERE token = ANY(\(hex)::text[]) AND state = 'stored'
            ORDER BY seq
            """
        ).map(Self.storedNotification)
    }

    public func releaseRoutes(_ tokens: [DeviceToken]) async throws {
        let cluster = try clusterSettings()
        guard !tokens.isEmpty else { return }
        _ = try await rows("DELETE FROM token_route WHERE node_id = \(cluster.nodeID) AND token = ANY(\(tokens.map(\.hex))::text[])")
    }

    public func storedForRoutedTokens() async throws -> [StoredNotification] {
        let cluster = try clusterSettings()
        return try await rows(
            """
            SELECT \(unescaped: Self.notificationColumns) FROM notification
            WHERE token IN (SELECT token FROM token_route WHERE node_id = \(cluster.nodeID)) AND state = 'stored'
            ORDER BY seq LIMIT \(Self.maximumSweepRows)
            """
        ).map(Self.storedNotification)
    }

    public func storedNotifications(sequences: [Int64]) async throws -> [StoredNotification] {
        guard !sequences.isEmpty else {
            try checkOpen()
            return []
        }
        return try await rows(
            """
            SELECT \(unescaped: Self.notificationColumns) FROM notification
            WHERE seq = ANY(\(sequences)::bigint[]) AND state = 'stored' ORDER BY seq
            """
        ).map(Self.storedNotification)
    }

    public func heartbeat() async throws {
        let cluster = try clusterSettings()
        let first = !clusterState.withLock { state in
            defer { state.beatOnce = true }
            return state.beatOnce
        }
        let begun = ContinuousClock.now
        do {
            try await withTransaction { connection in
                if first {
                    // A previous run of this node (killed, then started again) left its routes: its devices are gone.
                    try await connection.query("DELETE FROM token_route WHERE node_id = \(cluster.nodeID)", logger: self.logger)
                    try await connection.query(
                        """
                        INSERT INTO node (id) VALUES (\(cluster.nodeID))
                        ON CONFLICT (id) DO UPDATE SET started_at = now(), heartbeat_at = now()
                        """,
                        logger: self.logger
                    )
                } else {
                    try await connection.query(
                        "INSERT INTO node (id) VALUES (\(cluster.nodeID)) ON CONFLICT (id) DO UPDATE SET heartbeat_at = now()",
                        logger: self.logger
                    )
                }
            }
        } catch {
            if first { clusterState.withLock { $0.beatOnce = false } }
            throw error
        }
        clusterState.withLock { state in
            if !state.closed && !state.left { state.leaseRenewedAt = max(state.leaseRenewedAt ?? begun, begun) }
        }
    }

    /// Whether this node holds its lease: its last heartbeat began less than ``Configuration/Cluster/lease`` ago, and
    /// it has not left. Read from memory (`GET /readyz` asks every second); `false` on a store that is no cluster node.
    ///
    /// Why from the heartbeat's start: the database stamps it when it writes it, never earlier, and the other nodes
    /// count the lease from that stamp; so this never says the lease is held when they no longer see it.
    public var holdsLease: Bool {
        guard let lease = configuration.cluster?.lease, let renewed = clusterState.withLock({ $0.leaseRenewedAt }) else { return false }
        return ContinuousClock.now - renewed < lease
    }

    /// The key of the advisory lock that lets one node at a time expire what nobody holds ("HERALDEX" in ASCII).
    static let expiryLockKey: Int64 = 0x4845_5241_4C44_4558

    public func expireUnrouted(nowMilliseconds: Int64, defaultStorageMilliseconds: Int64, limit: Int) async throws -> Int {
        let cluster = try clusterSettings()
        let lease = cluster.leaseMilliseconds
        return try await withTransaction { connection in
            let locked = try await self.rows("SELECT pg_try_advisory_xact_lock(\(Self.expiryLockKey))", on: connection)
            guard try locked.first?.decode(Bool.self) == true else { return 0 }
            return try await self.rows(
                """
                WITH due AS (
                    SELECT n.seq FROM notification AS n
                    WHERE n.state = 'stored'
                        AND CASE WHEN n.expiration IS NULL THEN n.accepted_at + \(defaultStorageMilliseconds)
                            ELSE n.expiration * 1000 END <= \(nowMilliseconds)
                        AND NOT EXISTS (
                            SELECT 1 FROM token_route AS r JOIN node AS d ON d.id = r.node_id
                            WHERE r.token = n.token AND d.heartbeat_at > now() - \(lease)::bigint * interval '1 millisecond'
                        )
                    ORDER BY n.seq LIMIT \(Int64(limit))
                ),
                moved AS (
                    UPDATE notification AS n SET state = 'expired' FROM due
                    WHERE n.seq = due.seq AND n.state = 'stored'
                    RETURNING n.apns_id, n.seq, n.expiration
                )
                INSERT INTO trace_event (apns_id, at, kind, detail)
                SELECT apns_id, \(nowMilliseconds), 'expired',
                    (CASE WHEN expiration = 0 THEN '{"reason":"expiration-zero-offline"}' ELSE '{"reason":"expired"}' END)::json
                FROM moved ORDER BY seq
                RETURNING 1
                """,
                on: connection
            ).count
        }
    }

    public func deviceNodes(deviceID: String?) async throws -> [String: [String]] {
        let cluster = try clusterSettings()
        let lease = cluster.leaseMilliseconds
        var nodes: [String: [String]] = [:]
        for row in try await rows(
            """
            SELECT DISTINCT t.device_id, r.node_id FROM token_route AS r
            JOIN node AS d ON d.id = r.node_id AND d.heartbeat_at > now() - \(lease)::bigint * interval '1 millisecond'
            JOIN device_token AS t ON t.token = r.token
            WHERE t.device_id IS NOT NULL AND (\(deviceID?.lowercased())::text IS NULL OR t.device_id = \(deviceID?.lowercased())::text)
            ORDER BY t.device_id, r.node_id
            """
        ) {
            let (device, node) = try row.decode((String, String).self)
            nodes[device, default: []].append(node)
        }
        return nodes
    }

    public func leave() async throws {
        let cluster = try clusterSettings()
        clusterState.withLock { state in
            state.left = true
            state.leaseRenewedAt = nil
        }
        try await withTransaction { connection in
            try await connection.query("DELETE FROM token_route WHERE node_id = \(cluster.nodeID)", logger: self.logger)
            try await connection.query("UPDATE node SET heartbeat_at = '-infinity' WHERE id = \(cluster.nodeID)", logger: self.logger)
        }
    }

    public func discardUnrouted(token: DeviceToken, atMilliseconds: Int64) async throws -> Int {
        let cluster = try clusterSettings()
        let lease = cluster.leaseMilliseconds
        return try await rows(
            """
            WITH moved AS (
                UPDATE notification SET state = 'discarded'
                WHERE token = \(token.hex) AND state = 'stored' AND NOT EXISTS (
                    SELECT 1 FROM token_route AS r JOIN node AS d ON d.id = r.node_id
                    WHERE r.token = \(token.hex) AND d.heartbeat_at > now() - \(lease)::bigint * interval '1 millisecond'
                )
                RETURNING apns_id, seq
            )
            INSERT INTO trace_event (apns_id, at, kind, detail)
            SELECT apns_id, \(atMilliseconds), 'discarded', '{"reason":"token-unregistered"}'::json FROM moved ORDER BY seq
            RETURNING 1
            """
        ).count
    }

    public func handOffs() -> AsyncStream<[Int64]> {
        listenStream(channel: \.channel, what: "hand-offs", read: Self.handOff)
    }

    /// A hand-off's sequences (`nil` for none).
    private static func handOff(_ payload: String) -> [Int64]? {
        let sequences = payload.split(separator: ",").compactMap { Int64($0) }
        return sequences.isEmpty ? nil : sequences
    }

    /// The messages `NOTIFY` brings on a channel, each read by `read` (`nil`: ignored), on a connection of its own; an
    /// empty stream on a store that is not a cluster node's.
    func listenStream<Element: Sendable>(
        channel: @escaping @Sendable (Configuration.Cluster) -> String,
        what: String,
        read: @escaping @Sendable (String) -> Element?
    ) -> AsyncStream<Element> {
        let (stream, continuation) = AsyncStream.makeStream(of: Element.self)
        guard let cluster = configuration.cluster else {
            continuation.finish()
            return stream
        }
        let task = Task { [self] in
            await self.listen(on: channel(cluster), what: what) { payload in
                if let element = read(payload) { continuation.yield(element) }
            }
            continuation.finish()
        }
        continuation.onTermination = { _ in task.cancel() }
        let shutDown = clusterState.withLock { state in
            if state.closed { return true }
            state.listeners.append(task)
            return false
        }
        if shutDown { task.cancel() }
        return stream
    }

    /// `LISTEN`s on `channel` on a connection of its own until cancelled; connects again a second after a failure.
    private func listen(on channel: String, what: String, _ received: @escaping @Sendable (String) -> Void) async {
        var id = 1
        while !Task.isCancelled {
            id += 1
            do {
                let connection = try await PostgresConnection.connect(
                    on: MultiThreadedEventLoopGroup.singleton.any(),
                    configuration: try configuration.connectionConfiguration(),
                    id: id,
                    logger: logger
                )
                let closeNow = clusterState.withLock { state in
                    if state.closed { return true }
                    state.listenConnections.append(connection)
                    return false
                }
                defer { clusterState.withLock { $0.listenConnections.removeAll { $0 === connection } } }
                if closeNow {
                    try? await connection.close()
                    return
                }
                do {
                    try await connection.listen(on: channel) { notifications in
                        for try await notification in notifications { received(notification.payload) }
                    }
                } catch {
                    try? await connection.close()
                    throw error
                }
                try? await connection.close()
            } catch {
                if Task.isCancelled { return }
                // What failed (the connection, its address) rather than PSQLError's generic description.
                logger.info("Listening for \(what) failed; trying again", metadata: ["store.error": "\(Self.storeError(error))"])
            }
            try? await Task.sleep(for: .seconds(1))
        }
    }

    /// Ends the hand-off listeners (at shutdown).
    func closeCluster() async {
        let (tasks, connections) = clusterState.withLock { state in
            state.closed = true
            state.leaseRenewedAt = nil
            defer {
                state.listeners = []
                state.listenConnections = []
            }
            return (state.listeners, state.listenConnections)
        }
        for task in tasks { task.cancel() }
        for connection in connections { try? await connection.close() }
        for task in tasks { await task.value }
    }
}

/// A cluster node's bookkeeping in the store.
struct ClusterState {
    /// The first heartbeat was written (it also dropped the routes a previous run left).
    var beatOnce = false
    /// When the last heartbeat that was written began; `nil` before the first and once the node left or closed.
    var leaseRenewedAt: ContinuousClock.Instant?
    /// The node left the cluster (``PostgresStore/leave()``): heartbeats in flight no longer renew the lease.
    var left = false
    var closed = false
    var listeners: [Task<Void, Never>] = []
    var listenConnections: [PostgresConnection] = []
}
