import Foundation
import HeraldCore
import HeraldStore
import NIOCore
import PostgresNIO

extension PostgresStore {
    /// Queues a notification for group commit; see ``NotificationStore/enqueue(_:completion:)``.
    ///
    /// The completion runs on the writer's task after `COMMIT`, or at once on the calling thread when the notification
    /// is refused (``StoreError/overloaded``, ``StoreError/shutDown``).
    public func enqueue(_ notification: AcceptedNotification, completion: @escaping @Sendable (Result<Int64, StoreError>) -> Void) {
        let pending = PendingNotification(notification: notification, completion: completion)
        switch commitState.withLock({ $0.enqueue(pending) }) {
        case .startWriter:
            writerWakeups.yield()
        case .queued:
            break
        case .rejected(let error):
            completion(.failure(error))
        }
    }

    /// Commits batches until the queue is empty (group commit's writer: one at a time).
    func writeBatches() async {
        while true {
            switch commitState.withLock({ $0.nextBatch() }) {
            case .stop:
                return
            case .stopAndFinishShutdown(let waiters):
                for waiter in waiters { waiter.resume() }
                return
            case .commit(let batch):
                let results = await commit(batch)
                for index in batch.indices {
                    batch[index].completion(results[index])
                }
            }
        }
    }

    /// Commits one batch in one transaction and returns each notification's result: its sequence number.
    ///
    /// The batch goes in as one multi-row INSERT over `unnest` of its columns; a notification it could not insert
    /// (its token is unknown, its `apns-id` is stored already, or a value breaks a rule) is then handled alone in a
    /// savepoint, so that it fails alone. An error of the transaction itself fails the whole batch.
    func commit(_ batch: [PendingNotification]) async -> [Result<Int64, StoreError>] {
        let notifications = batch.map(\.notification)
        do {
            let cluster = configuration.cluster
            return try await withTransaction(checkingOpen: false) { connection in
                let results = try await self.insert(notifications, on: connection)
                if let cluster {
                    // In the same transaction: a hand-off is sent if and only if the batch commits.
                    try await self.handOff(results.compactMap { try? $0.get() }, cluster: cluster, on: connection)
                }
                return results
            }
        } catch {
            let failure = Self.storeError(error)
            logger.info("Group commit failed", metadata: ["store.batch.size": "\(batch.count)", "store.error": "\(failure)"])
            return [Result](repeating: .failure(failure), count: batch.count)
        }
    }

    private func insert(_ notifications: [AcceptedNotification], on connection: PostgresConnection) async throws -> [Result<Int64, StoreError>] {
        var results = [Result<Int64, StoreError>?](repeating: nil, count: notifications.count)
        try await connection.query("SAVEPOINT batch", logger: logger)
        do {
            // The first occurrence of each new `apns-id` with a known token; the rest are handled one by one below.
            let rows = try await connection.query(try Self.multiRowInsert(notifications), logger: logger)
            var inserted: [UUID: Int64] = [:]
            for try await (sequence, key) in rows.decode((Int64, UUID).self) {
                inserted[key] = sequence
            }
            // Each inserted row stands for its own `accepted` event (no trace row: PostgresSchema, `trace_event`).
            for (index, notification) in notifications.enumerated() {
                guard let key = UUID(uuidString: notification.id.key), let sequence = inserted.removeValue(forKey: key) else {
                    continue
                }
                results[index] = .success(sequence)
            }
            try await connection.query("RELEASE SAVEPOINT batch", logger: logger)
        } catch let error as PSQLError where error.serverInfo?[.sqlState]?.hasPrefix("23") == true {
            // A value broke a rule: back to before the batch, and every notification alone.
            try await connection.query("ROLLBACK TO SAVEPOINT batch", logger: logger)
            results = [Result<Int64, StoreError>?](repeating: nil, count: notifications.count)
        }
        for index in notifications.indices where results[index] == nil {
            results[index] = try await insertAlone(notifications[index], on: connection)
        }
        return results.map { $0 ?? .failure(.database) }
    }

    /// The batch's INSERT: one row per notification whose token is registered, in the batch's order, skipping an
    /// `apns-id` that is already stored (or earlier in the batch); returns each inserted row's sequence and key.
    static func multiRowInsert(_ notifications: [AcceptedNotification]) throws -> PostgresQuery {
        let keys = try notifications.map { try uuid($0.id) }
        let texts = notifications.map(\.id.text)
        let tokens = notifications.map(\.token.hex)
        let topics = notifications.map(\.topic)
        let bundleIDs = notifications.map(\.bundleID)
        let environments = notifications.map(\.environment.rawValue)
        let pushTypes = notifications.map(\.pushType.rawValue)
        let priorities = notifications.map { Int64($0.priority.rawValue) }
        // `unnest` takes no NULLs from Swift arrays here: -1 and a flag stand for "none".
        let expirations = notifications.map { $0.expiration ?? -1 }
        let hasCollapse = notifications.map { $0.collapseID != nil }
        let collapseIDs = notifications.map { $0.collapseID ?? "" }
        let payloads = notifications.map { ByteBuffer(bytes: $0.payload) }
        let acceptedAt = notifications.map(\.acceptedAtMilliseconds)
        return """
            INSERT INTO notification (apns_id, apns_id_text, token, topic, bundle_id, environment, push_type, priority,
                expiration, collapse_id, payload, accepted_at)
            SELECT p.k, p.x, p.t, p.topic, p.b, p.e, p.pt, p.pr, nullif(p.ex, -1), CASE WHEN p.hc THEN p.c END, p.pl, p.at
            FROM unnest(\(keys)::uuid[], \(texts)::text[], \(tokens)::text[], \(topics)::text[], \(bundleIDs)::text[],
                \(environments)::text[], \(pushTypes)::text[], \(priorities)::bigint[], \(expirations)::bigint[],
                \(hasCollapse)::boolean[], \(collapseIDs)::text[], \(payloads)::bytea[], \(acceptedAt)::bigint[])
                WITH ORDINALITY AS p(k, x, t, topic, b, e, pt, pr, ex, hc, c, pl, at, ord)
            WHERE EXISTS (SELECT 1 FROM device_token AS d WHERE d.token = p.t)
            ORDER BY p.ord
            ON CONFLICT (apns_id) DO NOTHING
            RETURNING seq, apns_id
            """
    }

    /// One notification in a savepoint of its own: an unknown token fails it, a stored `apns-id` is replaced.
    private func insertAlone(_ notification: AcceptedNotification, on connection: PostgresConnection) async throws -> Result<Int64, StoreError> {
        let key = try Self.uuid(notification.id)
        try await connection.query("SAVEPOINT alone", logger: logger)
        do {
            let known = try await rows(
                "SELECT 1 FROM device_token WHERE token = \(notification.token.hex)",
                on: connection
            )
            guard !known.isEmpty else {
                try await connection.query("RELEASE SAVEPOINT alone", logger: logger)
                return .failure(StoreError.unknownDeviceToken.with(detail: notification.token.hex))
            }
            var previous: (sequence: Int64, state: String, token: String, topic: String, acceptedAt: Int64)?
            for try await row in try await connection.query(
                "DELETE FROM notification WHERE apns_id = \(key) RETURNING seq, state, token, topic, accepted_at",
                logger: logger
            ).decode((Int64, String, String, String, Int64).self) {
                previous = row
            }
            var sequence: Int64?
            for try await value in try await connection.query(try Self.multiRowInsert([notification]), logger: logger).decode((Int64, UUID).self) {
                sequence = value.0
            }
            guard let sequence else { throw StoreError.database.with(detail: "the notification was not inserted") }
            if let previous {
                // The replaced row's acceptance, written out with the detail only the row could give, before the older
                // row's other events (or given its detail, when it was written out already: a replacement itself).
                let detail = TraceText.acceptedDetail(sequence: previous.sequence, token: previous.token, topic: previous.topic)
                try await connection.query(
                    """
                    WITH written AS (
                        UPDATE trace_event SET detail = \(detail)::json
                        WHERE kind = 'accepted' AND seq = \(previous.sequence) AND apns_id = \(key) RETURNING 1
                    )
                    INSERT INTO trace_event (apns_id, ord, at, kind, detail, seq)
                    SELECT \(key), coalesce((SELECT min(ord) - 1 FROM trace_event WHERE apns_id = \(key)), nextval('trace_event_order')),
                        \(previous.acceptedAt), 'accepted', \(detail)::json, \(previous.sequence)
                    WHERE NOT EXISTS (SELECT 1 FROM written)
                    """,
                    logger: logger
                )
            }
            var replaced = #"{"reason":"duplicate-apns-id","previousSeq":"#
            replaced += previous.map { String($0.sequence) } ?? "null"
            replaced += #","previousState":"#
            replaced += previous.map { "\"" + $0.state + "\"" } ?? "null"
            replaced += #","replacedBySeq":"# + String(sequence) + "}"
            let at = notification.acceptedAtMilliseconds
            try await connection.query(
                """
                INSERT INTO trace_event (apns_id, at, kind, detail, seq)
                VALUES (\(key), \(at), 'replaced', \(replaced)::json, NULL), (\(key), \(at), 'accepted', NULL, \(sequence))
                """,
                logger: logger
            )
            try await connection.query("RELEASE SAVEPOINT alone", logger: logger)
            return .success(sequence)
        } catch let error as PSQLError where error.serverInfo?[.sqlState]?.hasPrefix("23") == true {
            try await connection.query("ROLLBACK TO SAVEPOINT alone", logger: logger)
            return .failure(Self.storeError(error))
        }
    }

    /// The `uuid` column's value of an `apns-id` (always a UUID: ``NotificationID`` checks its form).
    static func uuid(_ id: NotificationID) throws -> UUID {
        guard let uuid = UUID(uuidString: id.key) else { throw StoreError.invalidRecord.with(detail: "apns-id \(id.text)") }
        return uuid
    }
}
