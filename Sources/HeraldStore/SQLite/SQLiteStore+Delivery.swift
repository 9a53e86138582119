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
    /// For each change: the trace event is appended when its notification is stored (a change for an unknown one
    /// is skipped, not an error), then the state moves — only while it is still `stored`, because the other
    /// states are final. Any failure (a detail that is not a JSON object, a state the schema does not know,
    /// the database) rolls the whole batch back and is thrown as a ``StoreError``.
    ///
    /// A change with a ``DeliveryChange/sequence`` applies to that row (its primary key, also the fast path: the
    /// random `apns-id` index is mostly out of the cache by then). When that row is gone because a provider reused
    /// the `apns-id`, the event joins the trace of the `apns-id` (where the replaced row's events went) but the
    /// newer notification's state never moves: a late acknowledgement of the older must not deliver the newer.
    /// A change without a sequence applies to whichever notification holds the `apns-id`.
    ///
    /// The hot path of delivery: the statements are prepared once per connection, reused, and bound with SQLite's
    /// C API (`DirectStatement`).
    public func record(_ changes: [DeliveryChange]) async throws {
        try checkOpen()
        guard !changes.isEmpty else { return }
        try await write { db in
            let statements = try DeliveryStatements(db)
            for change in changes {
                guard let row = try statements.appendEvent(change, db) else { continue }
                guard let newState = change.newState else { continue }
                try statements.moveState(of: row, to: newState)
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

/// The delivery journal's statements, prepared once per connection and reused by every batch.
private struct DeliveryStatements {
    /// One INSERT … SELECT both checks that the notification exists and appends its event.
    let appendEventBySequence: DirectStatement
    let appendEventByKey: DirectStatement
    let moveStateBySequence: DirectStatement
    let moveStateByKey: DirectStatement

    /// Where a change's event went, and so which row's state it may move.
    enum Row {
        case sequence(Int64)
        case key(String)
    }

    init(_ db: Database) throws {
        let append = "INSERT INTO trace_event (notification_seq, apns_id, at, kind, detail) SELECT seq, apns_id, ?, ?, ? FROM notification"
        appendEventBySequence = try DirectStatement(db, sql: append + " WHERE seq = ?")
        appendEventByKey = try DirectStatement(db, sql: append + " WHERE apns_id = ?")
        let move = "UPDATE notification SET state = ?"
        moveStateBySequence = try DirectStatement(db, sql: move + " WHERE seq = ? AND state = 'stored'")
        moveStateByKey = try DirectStatement(db, sql: move + " WHERE apns_id = ? AND state = 'stored'")
    }

    /// Appends the change's event and returns the row whose state it may move, or `nil` for none.
    ///
    /// By sequence when the change has one; a change whose row was replaced is traced on the `apns-id`'s row and
    /// moves no state. Without a sequence, by `apns-id`.
    func appendEvent(_ change: DeliveryChange, _ db: Database) throws -> Row? {
        if let sequence = change.sequence {
            bindEvent(change, to: appendEventBySequence)
            appendEventBySequence.bind(sequence, at: 4)
            try appendEventBySequence.run()
            if db.changesCount == 1 { return .sequence(sequence) }
        }
        let key = change.notificationID.key
        bindEvent(change, to: appendEventByKey)
        appendEventByKey.bind(key, at: 4)
        try appendEventByKey.run()
        guard db.changesCount == 1, change.sequence == nil else { return nil }
        return .key(key)
    }

    /// Moves a notification to `state` if it is still `stored`.
    func moveState(of row: Row, to state: NotificationState) throws {
        switch row {
        case .sequence(let sequence):
            moveStateBySequence.bind(state.rawValue, at: 1)
            moveStateBySequence.bind(sequence, at: 2)
            try moveStateBySequence.run()
        case .key(let key):
            moveStateByKey.bind(state.rawValue, at: 1)
            moveStateByKey.bind(key, at: 2)
            try moveStateByKey.run()
        }
    }

    private func bindEvent(_ change: DeliveryChange, to statement: DirectStatement) {
        statement.bind(change.atMilliseconds, at: 1)
        statement.bind(change.event.rawValue, at: 2)
        statement.bind(change.detailJSON, at: 3)
    }
}
