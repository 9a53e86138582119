import Foundation
import HeraldCore
import HeraldStore
import PostgresNIO

extension PostgresStore {
    /// A notification's columns as ``storedNotification(_:)`` reads them.
    static let notificationColumns = """
        seq, apns_id_text, token, topic, bundle_id, environment, push_type, priority, expiration, collapse_id, payload, \
        accepted_at, state
        """

    /// The most rows one listing returns.
    static let maximumListLimit = 10_000

    /// Every notification still in state ``NotificationState/stored``, oldest first (by sequence).
    public func pendingNotifications() async throws -> [StoredNotification] {
        try await rows("SELECT \(unescaped: Self.notificationColumns) FROM notification WHERE state = 'stored' ORDER BY seq")
            .map(Self.storedNotification)
    }

    /// Writes a batch of delivery changes in one statement (one transaction), in order.
    ///
    /// The rules are ``SQLiteStore``'s: an event joins the trace of its `apns-id` when a notification holds it (a change
    /// for an unknown one is skipped); the state moves only while it is `stored`, by the first change of the batch that
    /// moves it; a change with a sequence moves only that row's state (a row replaced by a reused `apns-id` keeps its
    /// newer notification's state). A kind that is not lowercase letters and `-`, or a detail that is not a JSON
    /// object, fails the whole batch.
    ///
    /// An event is kept when a notification holds its `apns-id` (a change naming a sequence whose row a reused `apns-id`
    /// replaced joins the newer row's trace). The test is one index probe per change (`LATERAL … LIMIT 1`): written as
    /// `EXISTS … OR EXISTS …`, PostgreSQL hashed the whole `apns_id` index for every batch, and the journal's batches
    /// took up to 1.3 s with 130k rows stored (bench/cluster/results-2026-11-27.md).
    public func record(_ changes: [DeliveryChange]) async throws {
        try checkOpen()
        guard !changes.isEmpty else { return }
        try DeliveryChange.checkStorable(changes)
        let keys = try changes.map { try Self.uuid($0.notificationID) }
        // No NULLs in the arrays: -1 stands for "no sequence", '' for "no new state", a flag for "no detail".
        let sequences = changes.map { $0.sequence ?? -1 }
        let states = changes.map { $0.newState?.rawValue ?? "" }
        let times = changes.map(\.atMilliseconds)
        let kinds = changes.map(\.event.rawValue)
        let hasDetail = changes.map { $0.detailJSON != nil }
        let details = changes.map { $0.detailJSON.map(Self.minifiedJSON) ?? "" }
        let statement: PostgresQuery = """
            WITH c AS (
                SELECT * FROM unnest(\(keys)::uuid[], \(sequences)::bigint[], \(states)::text[], \(times)::bigint[],
                    \(kinds)::text[], \(hasDetail)::boolean[], \(details)::text[]) WITH ORDINALITY AS c(k, s, st, at, kind, hd, d, ord)
            ),
            target AS (
                SELECT n.seq AS row, c.st, c.ord FROM c JOIN notification AS n ON n.seq = c.s WHERE c.s <> -1 AND c.st <> ''
                UNION ALL
                SELECT n.seq AS row, c.st, c.ord FROM c JOIN notification AS n ON n.apns_id = c.k WHERE c.s = -1 AND c.st <> ''
            ),
            moved AS (
                UPDATE notification AS n SET state = f.st
                FROM (SELECT DISTINCT ON (row) row, st FROM target ORDER BY row, ord) AS f
                WHERE n.seq = f.row AND n.state = 'stored'
                RETURNING n.seq
            )
            INSERT INTO trace_event (apns_id, at, kind, detail)
            SELECT c.k, c.at, c.kind, CASE WHEN c.hd THEN c.d::json END
            FROM c CROSS JOIN LATERAL (SELECT 1 FROM notification AS n WHERE n.apns_id = c.k LIMIT 1) AS held
            ORDER BY c.ord
            """
        try await withConnection { connection in
            _ = try await connection.query(statement, logger: self.logger)
        }
    }

    /// A JSON text without the whitespace between its tokens (as SQLite's `json()` writes it), or the text as it was
    /// when it is not JSON (PostgreSQL's `json` then refuses it).
    static func minifiedJSON(_ text: String) -> String {
        var out: [UInt8] = []
        out.reserveCapacity(text.utf8.count)
        var inString = false
        var escaped = false
        for byte in text.utf8 {
            if inString {
                out.append(byte)
                if escaped {
                    escaped = false
                } else if byte == UInt8(ascii: "\\") {
                    escaped = true
                } else if byte == UInt8(ascii: "\"") {
                    inString = false
                }
                continue
            }
            switch byte {
            case 0x20, 0x09, 0x0A, 0x0D: continue
            case UInt8(ascii: "\""): inString = true
            default: break
            }
            out.append(byte)
        }
        return String(decoding: out, as: UTF8.self)
    }

    /// Stored notifications, newest first (by sequence), addressed to any token the device was ever issued.
    public func listNotifications(deviceID: String, limit: Int) async throws -> [StoredNotification] {
        let limit = min(max(limit, 0), Self.maximumListLimit)
        guard limit > 0 else {
            try checkOpen()
            return []
        }
        return try await rows(
            """
            SELECT \(unescaped: Self.notificationColumns) FROM notification
            WHERE token IN (SELECT token FROM device_token WHERE device_id = \(deviceID.lowercased()))
            ORDER BY seq DESC LIMIT \(limit)
            """
        ).map(Self.storedNotification)
    }

    static func storedNotification(_ row: PostgresRow) throws -> StoredNotification {
        let (sequence, idText, tokenHex, topic, bundleID, environmentName, pushType, priority, expiration, collapseID, payload, acceptedAt, state) =
            try row.decode(
                (Int64, String, String, String, String, String, String, Int, Int64?, String?, ByteBuffer, Int64, String).self
            )
        guard let id = NotificationID(idText), let token = DeviceToken(hex: tokenHex),
            let environment = APNSEnvironment(rawValue: environmentName)
        else { throw StoreError.corruptRecord.with(detail: "notification \(idText)") }
        let notification = AcceptedNotification(
            id: id,
            token: token,
            topic: topic,
            bundleID: bundleID,
            environment: environment,
            pushType: PushType(rawValue: pushType),
            priority: APNSPriority(rawValue: priority),
            expiration: expiration,
            collapseID: collapseID,
            payload: Array(buffer: payload),
            acceptedAtMilliseconds: acceptedAt
        )
        return StoredNotification(sequence: sequence, notification: notification, state: NotificationState(rawValue: state))
    }
}
