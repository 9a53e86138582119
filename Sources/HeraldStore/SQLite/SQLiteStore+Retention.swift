import GRDB
import HeraldCore

/// What one ``SQLiteStore/prune(acceptedBefore:after:limit:)`` call did.
public struct PruneBatch: Sendable, Hashable {
    /// Notifications deleted, with their traces.
    public var deleted: Int
    /// The deleted notifications by the final state they were in; the counts add up to ``deleted``.
    public var deletedByState: [NotificationState: Int] = [:]
    /// The highest sequence number looked at; pass it as `after` to go on.
    public var lastSequence: Int64
    /// Whether the scan reached a notification accepted at or after the cutoff, or the end: nothing older is
    /// left to look at in this pass.
    public var isComplete: Bool

    /// Creates a result.
    public init(deleted: Int, lastSequence: Int64, isComplete: Bool) {
        self.deleted = deleted
        self.lastSequence = lastSequence
        self.isComplete = isComplete
    }
}

extension SQLiteStore {
    /// Deletes notifications in a final state (`delivered`, `expired`, `replaced`, `discarded`) accepted before
    /// `cutoff` (milliseconds since the epoch), with their traces (a column of the row); one short transaction.
    ///
    /// Looks at up to `limit` notifications in sequence order after `after`; stops at the first one accepted at
    /// or after the cutoff. A notification still `stored` is never deleted, however old: it is waiting for its
    /// device. A pass starts at `after: 0` and calls again with ``PruneBatch/lastSequence`` until
    /// ``PruneBatch/isComplete``; the scan follows the primary key, so a pass costs the rows it deletes plus the
    /// old `stored` ones it steps over, never a scan of the whole table.
    public func prune(acceptedBefore cutoff: Int64, after: Int64, limit: Int) async throws -> PruneBatch {
        try checkOpen()
        let limit = max(limit, 1)
        return try await write { db in
            let rows = try Row.fetchAll(
                db,
                sql: "SELECT seq, state, accepted_at FROM notification WHERE seq > ? ORDER BY seq LIMIT ?",
                arguments: [after, limit]
            )
            var lastSequence = after
            var isComplete = rows.count < limit
            var finished: [Int64] = []
            var deletedByState: [NotificationState: Int] = [:]
            for row in rows {
                let acceptedAt: Int64 = row["accepted_at"]
                if acceptedAt >= cutoff {
                    isComplete = true
                    break
                }
                lastSequence = row["seq"]
                let state: String = row["state"]
                if state != NotificationState.stored.rawValue {
                    finished.append(row["seq"])
                    deletedByState[NotificationState(rawValue: state), default: 0] += 1
                }
            }
            let deleteNotification = try db.cachedStatement(sql: "DELETE FROM notification WHERE seq = ?")
            for sequence in finished {
                try deleteNotification.execute(arguments: [sequence])
            }
            var batch = PruneBatch(deleted: finished.count, lastSequence: lastSequence, isComplete: isComplete)
            batch.deletedByState = deletedByState
            return batch
        }
    }
}
