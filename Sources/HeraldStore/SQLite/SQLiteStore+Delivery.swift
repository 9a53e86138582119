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
                sql: "\(Self.notificationSelect) WHERE n.state = 'stored' ORDER BY n.seq"
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
    /// The hot path of delivery: one UPDATE per change (per two changes of one notification, when a batch holds
    /// several), prepared once per connection, reused, and bound with SQLite's C API (`DirectStatement`).
    public func record(_ changes: [DeliveryChange]) async throws {
        try checkOpen()
        guard !changes.isEmpty else { return }
        try DeliveryChange.checkStorable(changes)
        try await write { db in
            let statements = try DeliveryStatements(db)
            do {
                for group in Self.groupsByNotification(changes) {
                    try statements.apply(group, of: changes, db)
                }
            } catch let error as DatabaseError where error.message?.contains("malformed JSON") == true {
                throw StoreError.invalidRecord.with(detail: "trace event detail is not JSON")
            }
        }
    }

    /// The changes' indexes grouped by `apns-id`, each group in order, the groups in order of first appearance.
    ///
    /// Why: under load one batch holds several changes of one notification (its `stored` event, then its `replaced`
    /// event when the next one for the device arrives); written together they cost one UPDATE instead of several.
    /// Grouping by `apns-id` and not by sequence keeps the order of every row's events exact: changes of different
    /// `apns-id`s never touch the same row, even when a change falls back from a replaced row to the `apns-id`'s.
    static func groupsByNotification(_ changes: [DeliveryChange]) -> [[Int]] {
        var groups: [[Int]] = []
        var groupOfKey: [String: Int] = [:]
        groups.reserveCapacity(changes.count)
        for (index, change) in changes.enumerated() {
            let key = change.notificationID.key
            if let group = groupOfKey[key] {
                groups[group].append(index)
            } else {
                groupOfKey[key] = groups.count
                groups.append([index])
            }
        }
        return groups
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
            let tokens = try String.fetchAll(db, sql: "SELECT token FROM device_token WHERE device_id = ?", arguments: [deviceKey])
            return try Self.newestNotifications(of: tokens, limit: limit, db).map(Self.storedNotification)
        }
    }
}

/// The delivery journal's statements, prepared once per connection and reused by every batch.
private struct DeliveryStatements {
    let appendBySequence: DirectStatement
    let appendByKey: DirectStatement
    let appendAndMoveBySequence: DirectStatement
    let appendAndMoveByKey: DirectStatement
    /// Two lines at once, for a notification with several changes in the batch.
    let appendTwoBySequence: DirectStatement
    let appendTwoAndMoveBySequence: DirectStatement

    init(_ db: Database) throws {
        // ?1 the event's time, ?7 its kind, ?2 its detail or NULL (`json()` checks and minifies it), ?3 the row, ?4 the
        // new state (unused by the statements that do not move it), ?5, ?8 and ?6 a second line. The line is written by
        // `herald_trace_append` (``TraceText/append(kind:atMilliseconds:detail:to:acceptedAt:device:into:)``), which reads the row's trace for the
        // detail a back-reference may repeat and is given the token's device (one byte in the detail). The state is
        // set only by the statements that move it, so that an event alone leaves the partial index of `stored`
        // notifications alone.
        let device = "(SELECT device_id FROM token_ref WHERE ref = token_ref)"
        let line = "herald_trace_append(trace, accepted_at, ?1, ?7, json(?2), \(device))"
        let twoLines = "herald_trace_append(\(line), accepted_at, ?5, ?8, json(?6), \(device))"
        appendBySequence = try DirectStatement(db, sql: "UPDATE notification SET trace = \(line) WHERE seq = ?3")
        appendByKey = try DirectStatement(db, sql: "UPDATE notification SET trace = \(line) WHERE apns_id = ?3")
        let move = "UPDATE notification SET state = ?4, trace = \(line)"
        appendAndMoveBySequence = try DirectStatement(db, sql: move + " WHERE seq = ?3 AND state = 'stored'")
        appendAndMoveByKey = try DirectStatement(db, sql: move + " WHERE apns_id = ?3 AND state = 'stored'")
        appendTwoBySequence = try DirectStatement(db, sql: "UPDATE notification SET trace = \(twoLines) WHERE seq = ?3")
        appendTwoAndMoveBySequence = try DirectStatement(
            db,
            sql: "UPDATE notification SET state = ?4, trace = \(twoLines) WHERE seq = ?3 AND state = 'stored'"
        )
    }

    /// Applies the changes at `indexes` (all of one `apns-id`, in order) as one change after the other would.
    ///
    /// When they all name the same row by sequence, two at a time: the first pair that holds a state change moves
    /// the state (if the row is still `stored`: later state changes could not apply after it), the rest append.
    /// When the row is gone, or the changes name different rows, one at a time.
    func apply(_ indexes: [Int], of changes: [DeliveryChange], _ db: Database) throws {
        // Changes are read in place (`changes[index]`), never copied out: a copy retains every field.
        guard indexes.count > 1, let sequence = changes[indexes[0]].sequence,
            indexes.allSatisfy({ changes[$0].sequence == sequence })
        else {
            for index in indexes { try apply(changes, index, db) }
            return
        }
        var movePending = true
        var start = 0
        while start < indexes.count {
            let lines = indexes[start..<min(start + 2, indexes.count)]
            let (append, appendAndMove) =
                lines.count == 1
                ? (appendBySequence, appendAndMoveBySequence) : (appendTwoBySequence, appendTwoAndMoveBySequence)
            let state = movePending ? lines.lazy.compactMap({ changes[$0].newState }).first : nil
            var moved = false
            if let state {
                appendAndMove.bind(state.rawValue, at: 4)
                moved = try run(appendAndMove, changes, lines, row: .sequence(sequence), db)
            }
            if !moved {
                guard try run(append, changes, lines, row: .sequence(sequence), db) else { break }
            }
            // Moved, or appended without moving because the row is no longer `stored`: no later change moves it.
            if state != nil { movePending = false }
            start += lines.count
        }
        // The row is gone (a provider reused the `apns-id`): the rest join the `apns-id`'s trace, one at a time.
        for index in indexes[start...] { try apply(changes, index, db) }
    }

    /// Appends the change's event to its notification's trace and moves the state if it is still `stored`.
    ///
    /// By sequence when the change has one; a change whose row was replaced is traced on the `apns-id`'s row and
    /// moves no state. Without a sequence, by `apns-id`.
    func apply(_ changes: [DeliveryChange], _ index: Int, _ db: Database) throws {
        // The 16-byte key only when the row is found by it: most changes name their row by sequence.
        let key = { SQLiteStore.keyBytes(changes[index].notificationID) }
        if let sequence = changes[index].sequence {
            if let state = changes[index].newState {
                appendAndMoveBySequence.bind(state.rawValue, at: 4)
                if try run(appendAndMoveBySequence, changes, CollectionOfOne(index), row: .sequence(sequence), db) { return }
            }
            if try run(appendBySequence, changes, CollectionOfOne(index), row: .sequence(sequence), db) { return }
            _ = try run(appendByKey, changes, CollectionOfOne(index), row: .key(key()), db)
            return
        }
        if let state = changes[index].newState {
            appendAndMoveByKey.bind(state.rawValue, at: 4)
            if try run(appendAndMoveByKey, changes, CollectionOfOne(index), row: .key(key()), db) { return }
        }
        _ = try run(appendByKey, changes, CollectionOfOne(index), row: .key(key()), db)
    }

    private enum Row {
        case sequence(Int64)
        case key([UInt8])
    }

    /// Binds the lines of the changes at `lines` (one or two: parameters 1, 2, 7 and 5, 6, 8) and the row, runs the
    /// statement; whether it updated a row.
    private func run(
        _ statement: DirectStatement,
        _ changes: [DeliveryChange],
        _ lines: some Collection<Int>,
        row: Row,
        _ db: Database
    ) throws -> Bool {
        for (position, change) in lines.enumerated() {
            bindLine(of: changes, change, to: statement, at: position == 0 ? 1 : 5, kindAt: position == 0 ? 7 : 8)
        }
        switch row {
        case .sequence(let sequence): statement.bind(sequence, at: 3)
        case .key(let key): statement.bind(blob: key, at: 3)
        }
        try statement.run()
        return db.changesCount == 1
    }

    /// Binds a change's time to parameter `index`, its detail to the next one and its kind to `kindIndex`.
    private func bindLine(of changes: [DeliveryChange], _ change: Int, to statement: DirectStatement, at index: Int32, kindAt kindIndex: Int32) {
        statement.bind(changes[change].atMilliseconds, at: index)
        statement.bind(changes[change].detailJSON, at: index + 1)
        statement.bind(changes[change].event.rawValue, at: kindIndex)
    }
}
