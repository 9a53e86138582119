import GRDB
import HeraldCore

extension SQLiteStore {
    /// Every notification still in state ``NotificationState/stored``, oldest first (by sequence).
    ///
    /// Read in one snapshot; served by the partial index `notification_stored`.
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
    /// is skipped, not an error), and the state moves in the same update — only while it is still `stored`,
    /// because the other states are final. Any failure (a kind that is not lowercase letters and `-`, a detail
    /// that is not a JSON object, a state the schema does not know, the database) rolls the whole batch back and
    /// is thrown as a ``StoreError``.
    ///
    /// A change with a ``DeliveryChange/sequence`` applies to that row (its primary key, also the fast path: the
    /// random `apns-id` index is mostly out of the cache by then). When that row is gone because a provider reused
    /// the `apns-id`, the event joins the trace of the `apns-id` (where the replaced row's events went) but the
    /// newer notification's state never moves: a late acknowledgement of the older must not deliver the newer.
    /// A change without a sequence applies to whichever notification holds the `apns-id`.
    ///
    /// The hot path of delivery: one UPDATE per change, prepared once per connection, reused, and bound with
    /// SQLite's C API (`DirectStatement`).
    public func record(_ changes: [DeliveryChange]) async throws {
        try checkOpen()
        guard !changes.isEmpty else { return }
        for change in changes {
            guard TraceText.isValidKind(change.event.rawValue) else {
                throw StoreError.invalidRecord.with(detail: "trace event kind \(change.event.rawValue)")
            }
            if let detail = change.detailJSON, !TraceText.looksLikeObject(detail) {
                throw StoreError.invalidRecord.with(detail: "trace event detail is not a JSON object")
            }
        }
        try await write { db in
            let statements = try DeliveryStatements(db)
            for change in changes {
                do {
                    try statements.apply(change, db)
                } catch let error as DatabaseError where error.message?.contains("malformed JSON") == true {
                    throw StoreError.invalidRecord.with(detail: "trace event detail is not JSON")
                }
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
    let appendBySequence: DirectStatement
    let appendByKey: DirectStatement
    let appendAndMoveBySequence: DirectStatement
    let appendAndMoveByKey: DirectStatement

    init(_ db: Database) throws {
        // ?1 the line up to its detail, ?2 the detail or NULL (`json()` checks and minifies it), ?3 the row, ?4 the
        // new state. The state is set only by the statements that move it, so that an event alone leaves the
        // partial index of `stored` notifications alone.
        let line = "trace = trace || ?1 || coalesce(',\"detail\":' || json(?2), '') || '}' || char(10)"
        appendBySequence = try DirectStatement(db, sql: "UPDATE notification SET \(line) WHERE seq = ?3")
        appendByKey = try DirectStatement(db, sql: "UPDATE notification SET \(line) WHERE apns_id = ?3")
        let move = "UPDATE notification SET state = ?4, \(line)"
        appendAndMoveBySequence = try DirectStatement(db, sql: move + " WHERE seq = ?3 AND state = 'stored'")
        appendAndMoveByKey = try DirectStatement(db, sql: move + " WHERE apns_id = ?3 AND state = 'stored'")
    }

    /// Appends the change's event to its notification's trace and moves the state if it is still `stored`.
    ///
    /// By sequence when the change has one; a change whose row was replaced is traced on the `apns-id`'s row and
    /// moves no state. Without a sequence, by `apns-id`.
    func apply(_ change: DeliveryChange, _ db: Database) throws {
        let key = change.notificationID.key
        if let sequence = change.sequence {
            if let state = change.newState {
                appendAndMoveBySequence.bind(state.rawValue, at: 4)
                if try run(appendAndMoveBySequence, change, row: .sequence(sequence), db) { return }
            }
            if try run(appendBySequence, change, row: .sequence(sequence), db) { return }
            _ = try run(appendByKey, change, row: .key(key), db)
            return
        }
        if let state = change.newState {
            appendAndMoveByKey.bind(state.rawValue, at: 4)
            if try run(appendAndMoveByKey, change, row: .key(key), db) { return }
        }
        _ = try run(appendByKey, change, row: .key(key), db)
    }

    private enum Row {
        case sequence(Int64)
        case key(String)
    }

    /// Binds the change's line and row, runs the statement; whether it updated a row.
    private func run(_ statement: DirectStatement, _ change: DeliveryChange, row: Row, _ db: Database) throws -> Bool {
        statement.bind(TraceText.linePrefix(at: change.atMilliseconds, kind: change.event.rawValue), at: 1)
        statement.bind(change.detailJSON, at: 2)
        switch row {
        case .sequence(let sequence): statement.bind(sequence, at: 3)
        case .key(let key): statement.bind(key, at: 3)
        }
        try statement.run()
        return db.changesCount == 1
    }
}
