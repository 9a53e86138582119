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
        // One statement (one snapshot): the row holding the `apns-id` (part 0), then the trace's rows in order.
        let rows = try await rows(
            """
            SELECT 0 AS part, n.accepted_at, 'accepted', NULL::text, n.seq, n.token, n.topic, 0::bigint AS ord
            FROM notification AS n WHERE n.apns_id = \(key)
            UNION ALL
            SELECT 1, e.at, e.kind, e.detail::text, n.seq, n.token, n.topic, e.ord
            FROM trace_event AS e LEFT JOIN notification AS n ON n.seq = e.seq AND e.detail IS NULL
            WHERE e.apns_id = \(key)
            ORDER BY part, ord
            """
        )
        typealias Line = (at: Int64, kind: String, detail: String?, sequence: Int64?, token: String?, topic: String?)
        var current: Line?
        var lines: [Line] = []
        for row in rows {
            let (part, at, kind, detail, sequence, token, topic, _) = try row.decode(
                (Int, Int64, String, String?, Int64?, String?, String?, Int64).self
            )
            if part == 0 { current = (at, kind, detail, sequence, token, topic) } else { lines.append((at, kind, detail, sequence, token, topic)) }
        }
        guard let current else { return [] }
        // The row's own acceptance, unless it was written out (a notification that replaced another).
        if !lines.contains(where: { $0.kind == TraceEventKind.accepted.rawValue && $0.sequence == current.sequence }) {
            lines.insert(current, at: 0)
        }
        return lines.enumerated().map { index, line in
            var detail = line.detail
            if detail == nil, line.kind == TraceEventKind.accepted.rawValue, let sequence = line.sequence, let token = line.token,
                let topic = line.topic
            {
                detail = TraceText.acceptedDetail(sequence: sequence, token: token, topic: topic)
            }
            return TraceEvent(
                id: Int64(index + 1),
                notificationKey: id.key,
                atMilliseconds: line.at,
                kind: TraceEventKind(rawValue: line.kind),
                detailJSON: detail
            )
        }
    }

    /// Row counts, read in one snapshot (one statement). Trace events: the rows of `trace_event` (every one belongs to a
    /// stored `apns-id`: pruning deletes the events of the `apns-id`s it leaves without a notification), plus each
    /// notification's own acceptance unless it is written out there.
    public func counts() async throws -> StoreCounts {
        let rows = try await rows(
            """
            SELECT 's:' || state, count(*) FROM notification GROUP BY state
            UNION ALL SELECT 'events', (SELECT count(*) FROM trace_event) + (SELECT count(*) FROM notification)
                - (SELECT count(*) FROM trace_event AS e WHERE e.kind = 'accepted' AND EXISTS (SELECT 1 FROM notification AS n WHERE n.seq = e.seq))
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
