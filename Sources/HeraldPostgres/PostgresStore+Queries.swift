import Foundation
import HeraldCore
import HeraldStore
import PostgresNIO

extension PostgresStore {
    /// One stored notification by `apns-id` (compared case-insensitively), or `nil`.
    public func notification(_ id: NotificationID) async throws -> StoredNotification? {
        let key = try Self.uuid(id)
        return try await rows("SELECT \(unescaped: Self.notificationColumns) FROM notification WHERE apns_id = \(key)")
            .first.map(Self.storedNotification)
    }

    /// Stored notifications, newest first (by sequence), for one token or all; `limit` is clamped to `0...10_000`.
    public func listNotifications(token: DeviceToken?, limit: Int) async throws -> [StoredNotification] {
        let limit = min(max(limit, 0), Self.maximumListLimit)
        guard limit > 0 else {
            try checkOpen()
            return []
        }
        let query: PostgresQuery
        if let token {
            query = """
                SELECT \(unescaped: Self.notificationColumns) FROM notification WHERE token = \(token.hex)
                ORDER BY seq DESC LIMIT \(limit)
                """
        } else {
            query = "SELECT \(unescaped: Self.notificationColumns) FROM notification ORDER BY seq DESC LIMIT \(limit)"
        }
        return try await rows(query).map(Self.storedNotification)
    }

    /// The trace of one `apns-id`, oldest event first; empty when no notification holds it.
    ///
    /// Event ids are the events' positions in the trace, from 1 (as ``SQLiteStore``'s). An `accepted` event stored
    /// without a detail gets the one its notification's row makes: `{"seq":…,"token":…,"topic":…}`.
    public func trace(_ id: NotificationID) async throws -> [TraceEvent] {
        let key = try Self.uuid(id)
        let rows = try await rows(
            """
            SELECT e.at, e.kind, e.detail::text, n.seq, n.token, n.topic
            FROM trace_event AS e LEFT JOIN notification AS n ON n.seq = e.seq AND e.detail IS NULL
            WHERE e.apns_id = \(key) AND EXISTS (SELECT 1 FROM notification WHERE apns_id = \(key))
            ORDER BY e.id
            """
        )
        return try rows.enumerated().map { index, row in
            let (at, kind, storedDetail, sequence, token, topic) = try row.decode((Int64, String, String?, Int64?, String?, String?).self)
            var detail = storedDetail
            if detail == nil, kind == TraceEventKind.accepted.rawValue, let sequence, let token, let topic {
                detail = TraceText.acceptedDetail(sequence: sequence, token: token, topic: topic)
            }
            return TraceEvent(
                id: Int64(index + 1),
                notificationKey: id.key,
                atMilliseconds: at,
                kind: TraceEventKind(rawValue: kind),
                detailJSON: detail
            )
        }
    }

    /// Row counts, read in one snapshot (one statement). Every trace event belongs to a stored `apns-id`: pruning deletes
    /// the events of the `apns-id`s it leaves without a notification.
    public func counts() async throws -> StoreCounts {
        let rows = try await rows(
            """
            SELECT 's:' || state, count(*) FROM notification GROUP BY state
            UNION ALL SELECT 'events', count(*) FROM trace_event
            UNION ALL SELECT 'tokens', count(*) FROM device_token
            UNION ALL SELECT 'active', count(*) FROM device_token WHERE unregistered_at IS NULL
            UNION ALL SELECT 'keys', count(*) FROM signing_key
            UNION ALL SELECT 'devices', count(*) FROM device
            """
        )
        var byState: [NotificationState: Int] = [:]
        var other: [String: Int] = [:]
        for row in rows {
            let (name, count) = try row.decode((String, Int).self)
            if name.hasPrefix("s:") {
                byState[NotificationState(rawValue: String(name.dropFirst(2)))] = count
            } else {
                other[name] = count
            }
        }
        return StoreCounts(
            notifications: byState.values.reduce(0, +),
            notificationsByState: byState,
            traceEvents: other["events"] ?? 0,
            deviceTokens: other["tokens"] ?? 0,
            activeDeviceTokens: other["active"] ?? 0,
            signingKeys: other["keys"] ?? 0,
            devices: other["devices"] ?? 0
        )
    }
}
