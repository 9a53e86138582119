import Foundation
import HeraldCore
import HeraldStore
import PostgresNIO

extension PostgresStore {
    /// Deletes finished notifications accepted before `cutoff`, with the trace events of the `apns-id`s no notification
    /// holds any more; one transaction. The rules are ``SQLiteStore/prune(acceptedBefore:after:limit:)``'s.
    public func prune(acceptedBefore cutoff: Int64, after: Int64, limit: Int) async throws -> PruneBatch {
        let limit = max(limit, 1)
        return try await withTransaction { connection -> PruneBatch in
            let rows = try await self.rows(
                "SELECT seq, state, accepted_at, apns_id FROM notification WHERE seq > \(after) ORDER BY seq LIMIT \(limit)",
                on: connection
            )
            var lastSequence = after
            var isComplete = rows.count < limit
            var finished: [Int64] = []
            var keys: [UUID] = []
            var deletedByState: [NotificationState: Int] = [:]
            for row in rows {
                let (sequence, state, acceptedAt, key) = try row.decode((Int64, String, Int64, UUID).self)
                if acceptedAt >= cutoff {
                    isComplete = true
                    break
                }
                lastSequence = sequence
                if state != NotificationState.stored.rawValue {
                    finished.append(sequence)
                    keys.append(key)
                    deletedByState[NotificationState(rawValue: state), default: 0] += 1
                }
            }
            if !finished.isEmpty {
                try await connection.query(
                    """
                    WITH gone AS (DELETE FROM notification WHERE seq = ANY(\(finished)::bigint[]) AND state <> 'stored' RETURNING apns_id)
                    DELETE FROM trace_event AS e USING gone WHERE e.apns_id = gone.apns_id
                        AND NOT EXISTS (SELECT 1 FROM notification AS n WHERE n.apns_id = gone.apns_id)
                    """,
                    logger: self.logger
                )
            }
            var batch = PruneBatch(deleted: finished.count, lastSequence: lastSequence, isComplete: isComplete)
            batch.deletedByState = deletedByState
            return batch
        }
    }

    /// The tokens unregistered since a registry revision, by any node, and brings the token cache up to date with them.
    public func unregisteredTokens(after revision: Int64?) async throws -> UnregisteredTokens {
        let (current, tokens) = try await withTransaction { connection -> (Int64, [RegistryCache.CachedToken]) in
            // One snapshot for the revision and the rows: REPEATABLE READ.
            try await connection.query("SET TRANSACTION ISOLATION LEVEL REPEATABLE READ", logger: self.logger)
            let current = try await self.rows("SELECT value FROM registry_revision WHERE id = 1", on: connection).first?.decode(Int64.self) ?? 0
            let rows: [PostgresRow]
            if let revision {
                guard current != revision else { return (current, []) }
                rows = try await self.rows(
                    """
                    SELECT \(unescaped: Self.tokenColumns) FROM device_token WHERE revision > \(revision) AND unregistered_at IS NOT NULL
                    """,
                    on: connection
                )
            } else {
                rows = try await self.rows(
                    """
                    SELECT \(unescaped: Self.tokenColumns) FROM device_token AS t WHERE unregistered_at IS NOT NULL
                        AND EXISTS (SELECT 1 FROM notification AS n WHERE n.token = t.token AND n.state = 'stored')
                    """,
                    on: connection
                )
            }
            return (current, try rows.map(Self.cachedToken))
        }
        registry.withLock { cache in
            for token in tokens { cache.store(token) }
        }
        return UnregisteredTokens(revision: current, tokens: tokens.map(\.record))
    }
}
