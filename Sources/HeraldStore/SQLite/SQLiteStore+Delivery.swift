import GRDB
import HeraldCore

extension SQLiteStore {
    /// Every notification still in state ``NotificationState/stored``, oldest first (by sequence).
    ///
    /// Read in one snapshot; served by the `notification_by_state` index.
    public func pendingNotifications() async throws -> [StoredNotification] {
        try checkOpen()
        return try await read { db in
            try Row.fetchAll(
                db,
                sql: "SELECT \(Self.notificationColumns) FROM notification WHERE state = 'stored' ORDER BY seq"
            ).map(Self.storedNotification)
        }
    }

    /// Writes a batch of delivery changes in one IMMEDIATE transaction, in order.
    ///
    /// For each change: the trace event is appended when the `apns-id` is stored (a change for an unknown id
    /// is skipped, not an error), then the state moves — only while it is still `stored`, because the other
    /// states are final. Any failure (a detail that is not a JSON object, a state the schema does not know,
    /// the database) rolls the whole batch back and is thrown as a ``StoreError``.
    ///
    /// The hot path of delivery: the two statements are prepared once per connection, reused, and bound with
    /// SQLite's C API (`DirectStatement`).
    public func record(_ changes: [DeliveryChange]) async throws {
        try checkOpen()
        guard !changes.isEmpty else { return }
        try await write { db in
            // One INSERT … SELECT both checks that the notification exists and appends its event.
            let appendEvent = try DirectStatement(
                db,
                sql: """
                    INSERT INTO trace_event (notification_seq, apns_id, at, kind, detail)
                    SELECT seq, apns_id, ?, ?, ? FROM notification WHERE apns_id = ?
                    """
            )
            let moveState = try DirectStatement(db, sql: "UPDATE notification SET state = ? WHERE apns_id = ? AND state = 'stored'")
            for change in changes {
                let key = change.notificationID.key
                appendEvent.bind(change.atMilliseconds, at: 1)
                appendEvent.bind(change.event.rawValue, at: 2)
                appendEvent.bind(change.detailJSON, at: 3)
                appendEvent.bind(key, at: 4)
                try appendEvent.run()
                guard db.changesCount == 1, let newState = change.newState else { continue }
                moveState.bind(newState.rawValue, at: 1)
                moveState.bind(key, at: 2)
                try moveState.run()
            }
        }
    }

    /// Stored notifications, newest first (by sequence), addressed to any token the device was ever issued.
    ///
    /// The device id is compared case-insensitively; an unknown device has none. `limit` is clamped to
    /// `0...10_000`.
    public func listNotifications(deviceID: String, limit: Int) async throws -> [StoredNotification] {
        try checkOpen()
        let limit = min(max(limit, 0), Self.maximumListLimit)
        guard limit > 0 else { return [] }
        let deviceKey = deviceID.lowercased()
        return try await read { db in
            try Row.fetchAll(
                db,
                sql: """
                    SELECT \(Self.notificationColumns) FROM notification
                    WHERE token IN (SELECT token FROM device_token WHERE device_id = ?)
                    ORDER BY seq DESC LIMIT ?
                    """,
                arguments: [deviceKey, limit]
            ).map(Self.storedNotification)
        }
    }
}
