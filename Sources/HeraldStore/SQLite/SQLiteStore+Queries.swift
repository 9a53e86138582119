import Foundation
import GRDB
import HeraldCore

extension SQLiteStore {
    /// A notification's columns as ``storedNotification(_:)`` reads them, with its token, and its topic, bundle id and
    /// environment where the row leaves them to the token, from `token_ref` (schema v10); from `notification AS n`.
    /// CROSS JOIN keeps `notification` the outer loop.
    static let notificationSelect = """
        SELECT n.seq, n.apns_id, n.apns_id_text, t.token, coalesce(n.topic, t.bundle_id) AS topic, \
        coalesce(n.bundle_id, t.bundle_id) AS bundle_id, coalesce(n.environment, t.environment) AS environment, \
        n.push_type, n.priority, n.expiration, n.collapse_id, n.payload, n.accepted_at, n.state \
        FROM notification AS n CROSS JOIN token_ref AS t ON t.ref = n.token_ref
        """

    /// The most rows one listing returns.
    static let maximumListLimit = 10_000

    /// One stored notification by `apns-id` (compared case-insensitively), or `nil`.
    public func notification(_ id: NotificationID) async throws -> StoredNotification? {
        try checkOpen()
        return try await read { db in
            try Row.fetchOne(
                db,
                sql: "\(Self.notificationSelect) WHERE n.apns_id = ?",
                arguments: [Data(Self.keyBytes(id))]
            ).map(Self.storedNotification)
        }
    }

    /// Stored notifications, newest first (by sequence), for one token or all; `limit` is clamped to `0...10_000`.
    public func listNotifications(token: DeviceToken?, limit: Int) async throws -> [StoredNotification] {
        try checkOpen()
        let limit = min(max(limit, 0), Self.maximumListLimit)
        guard limit > 0 else { return [] }
        return try await read { db in
            let rows: [Row]
            if let token {
                rows = try Self.newestNotifications(of: [token.hex], limit: limit, db)
            } else {
                rows = try Row.fetchAll(
                    db,
                    sql: "\(Self.notificationSelect) ORDER BY n.seq DESC LIMIT ?",
                    arguments: [limit]
                )
            }
            return try rows.map(Self.storedNotification)
        }
    }

    /// The trace of one `apns-id`, oldest event first; empty when unknown.
    ///
    /// Event ids are the events' positions in the trace, from 1.
    public func trace(_ id: NotificationID) async throws -> [TraceEvent] {
        try checkOpen()
        return try await read { db in
            guard
                let row = try Row.fetchOne(
                    db,
                    sql: """
                        SELECT n.seq, t.token, coalesce(n.topic, t.bundle_id) AS topic, n.accepted_at, n.trace, t.device_id
                        FROM notification AS n CROSS JOIN token_ref AS t ON t.ref = n.token_ref WHERE n.apns_id = ?
                        """,
                    arguments: [Data(Self.keyBytes(id))]
                )
            else { return [] }
            let sequence: Int64 = try row.decode(forColumn: "seq")
            let key = id.key
            guard
                let lines = TraceText.lines(
                    try row.decode(forColumn: "trace"),
                    acceptedAt: try row.decode(forColumn: "accepted_at"),
                    device: try row.decode(forColumn: "device_id")
                )
            else {
                throw StoreError.corruptRecord.with(detail: "trace of notification \(sequence)")
            }
            var acceptedDetail: String?
            return try lines.enumerated().map { index, line in
                var detail = line.detail
                if line.kind == TraceEventKind.accepted.rawValue, detail == nil {
                    if acceptedDetail == nil {
                        acceptedDetail = TraceText.acceptedDetail(
                            sequence: sequence,
                            token: try row.decode(forColumn: "token"),
                            topic: try row.decode(forColumn: "topic")
                        )
                    }
                    detail = acceptedDetail
                }
                return TraceEvent(
                    id: Int64(index + 1),
                    notificationKey: key,
                    atMilliseconds: line.atMilliseconds,
                    kind: TraceEventKind(rawValue: line.kind),
                    detailJSON: detail
                )
            }
        }
    }

    /// Row counts, read in one snapshot.
    public func counts() async throws -> StoreCounts {
        try checkOpen()
        return try await read { db in
            var byState: [NotificationState: Int] = [:]
            for row in try Row.fetchAll(db, sql: "SELECT state, count(*) AS n FROM notification GROUP BY state") {
                byState[NotificationState(rawValue: try row.decode(forColumn: "state"))] = try row.decode(forColumn: "n")
            }
            let tokens = try Row.fetchOne(
                db,
                sql: "SELECT count(*) AS total, count(*) FILTER (WHERE unregistered_at IS NULL) AS active FROM device_token"
            )
            return StoreCounts(
                notifications: byState.values.reduce(0, +),
                notificationsByState: byState,
                traceEvents: try Int.fetchOne(
                    db,
                    sql: "SELECT coalesce(sum(length(trace) - length(replace(trace, char(10), ''))), 0) FROM notification"
                ) ?? 0,
                deviceTokens: try tokens?.decode(forColumn: "total") ?? 0,
                activeDeviceTokens: try tokens?.decode(forColumn: "active") ?? 0,
                signingKeys: try Int.fetchOne(db, sql: "SELECT count(*) FROM signing_key") ?? 0,
                devices: try Int.fetchOne(db, sql: "SELECT count(*) FROM device") ?? 0
            )
        }
    }

    static func storedNotification(_ row: Row) throws -> StoredNotification {
        let keyBytes: Data = try row.decode(forColumn: "apns_id")
        let key = Self.key(fromBytes: [UInt8](keyBytes)) ?? ""
        let idText = Self.idText(stored: try row.decode(forColumn: "apns_id_text"), key: key)
        let tokenHex: String = try row.decode(forColumn: "token")
        let environmentName: String = try row.decode(forColumn: "environment")
        guard !key.isEmpty, let id = NotificationID(idText), let token = DeviceToken(hex: tokenHex),
            let environment = APNSEnvironment(rawValue: environmentName)
        else {
            throw StoreError.corruptRecord.with(detail: "notification \(idText)")
        }
        let payload: Data = try row.decode(forColumn: "payload")
        let notification = AcceptedNotification(
            id: id,
            token: token,
            topic: try row.decode(forColumn: "topic"),
            bundleID: try row.decode(forColumn: "bundle_id"),
            environment: environment,
            pushType: PushType(rawValue: try row.decode(forColumn: "push_type")),
            priority: APNSPriority(rawValue: try row.decode(forColumn: "priority")),
            expiration: try row.decode(forColumn: "expiration"),
            collapseID: try row.decode(forColumn: "collapse_id"),
            payload: [UInt8](payload),
            acceptedAtMilliseconds: try row.decode(forColumn: "accepted_at")
        )
        return StoredNotification(
            sequence: try row.decode(forColumn: "seq"),
            notification: notification,
            state: NotificationState(rawValue: try row.decode(forColumn: "state"))
        )
    }

    /// How many low bits of the sequence number a window of `notification_by_token_window` leaves out (schema v9):
    /// windows of 1024 notifications.
    static let tokenWindowShift = 10

    /// The newest notifications addressed to any of `tokens`, newest first, at most `limit`: the windows of
    /// `notification_by_token_window` from the newest down, one index seek each, until `limit` rows are found.
    ///
    /// A device that has had more than `tokensPerQuery` tokens (each activity has its own, and none is ever deleted)
    /// is read a group of tokens at a time, the groups' lists merged: SQLite takes at most 32,766 parameters.
    static func newestNotifications(of tokens: [String], limit: Int, tokensPerQuery: Int = 500, _ db: Database) throws -> [Row] {
        if tokens.count > tokensPerQuery {
            var rows: [Row] = []
            for start in stride(from: 0, to: tokens.count, by: max(1, tokensPerQuery)) {
                let group = Array(tokens[start..<min(start + max(1, tokensPerQuery), tokens.count)])
                rows += try newestNotifications(of: group, limit: limit, tokensPerQuery: tokensPerQuery, db)
            }
            let sequence = { (row: Row) -> Int64 in row["seq"] }
            return Array(rows.sorted { sequence($0) > sequence($1) }.prefix(limit))
        }
        guard !tokens.isEmpty, limit > 0,
            let range = try Row.fetchOne(db, sql: "SELECT min(seq) AS low, max(seq) AS high FROM notification"),
            let low: Int64 = range["low"], let high: Int64 = range["high"]
        else { return [] }
        // The tokens' numbers (schema v10); a token never registered has none, and no notification.
        let refs = try Int64.fetchAll(
            db,
            sql: "SELECT ref FROM token_ref WHERE token IN (\(Array(repeating: "?", count: tokens.count).joined(separator: ", ")))",
            arguments: StatementArguments(tokens)
        )
        guard !refs.isEmpty else { return [] }
        let placeholders = Array(repeating: "?", count: refs.count).joined(separator: ", ")
        let statement = try db.cachedStatement(
            sql: """
                \(notificationSelect)
                WHERE (n.seq >> \(tokenWindowShift)) = ? AND n.token_ref IN (\(placeholders))
                ORDER BY n.seq DESC LIMIT ?
                """
        )
        var rows: [Row] = []
        var window = high >> Int64(tokenWindowShift)
        let oldest = low >> Int64(tokenWindowShift)
        while window >= oldest, rows.count < limit {
            var arguments: [any DatabaseValueConvertible] = [window]
            arguments += refs
            arguments.append(limit - rows.count)
            rows += try Row.fetchAll(statement, arguments: StatementArguments(arguments))
            window -= 1
        }
        return rows
    }
}
