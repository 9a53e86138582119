import Foundation
import HeraldCore
import HeraldStore
import NIOCore
import PostgresNIO

extension PostgresStore {
    static let channelColumns = "id, bundle_id, environment, storage_policy, push_type, created_at"
    /// A channel's row and its kept broadcast's (NULLs when it keeps none), in one read.
    static let channelWithKeptMessage = """
        SELECT c.id, c.bundle_id, c.environment, c.storage_policy, c.push_type, c.created_at,
            m.request_id, m.priority, m.expiration, m.accepted_at, m.keep_until, m.payload
        FROM channel c LEFT JOIN channel_message m ON m.channel_id = c.id
        """

    /// Creates a channel with a new random id, unless the app already has `limit` channels in that environment (`nil`).
    ///
    /// The count and the insert are serialised per app and environment by a transaction-level advisory lock, so that
    /// nodes creating channels at once do not go over the limit together.
    public func createChannel(
        bundleID: String,
        environment: APNSEnvironment,
        storagePolicy: Int,
        pushType: String,
        limit: Int
    ) async throws -> ChannelRecord? {
        let record = ChannelRecord(
            id: SQLiteStore.newChannelID(),
            bundleID: bundleID,
            environment: environment,
            storagePolicy: storagePolicy,
            pushType: pushType,
            createdAtMilliseconds: clock.nowMilliseconds()
        )
        let lockName = "channel:\(bundleID):\(environment.rawValue)"
        return try await withTransaction { connection -> ChannelRecord? in
            try await connection.query("SELECT pg_advisory_xact_lock(hashtextextended(\(lockName), 0))", logger: self.logger)
            let counted = try await self.rows(
                "SELECT count(*) FROM channel WHERE bundle_id = \(bundleID) AND environment = \(environment.rawValue)",
                on: connection
            )
            guard try (counted.first?.decode(Int.self) ?? 0) < limit else { return nil }
            try await connection.query(
                """
                INSERT INTO channel (id, bundle_id, environment, storage_policy, push_type, created_at)
                VALUES (\(record.id), \(bundleID), \(environment.rawValue), \(storagePolicy), \(pushType), \(record.createdAtMilliseconds))
                """,
                logger: self.logger
            )
            return record
        }
    }

    /// The channel with this id, if it belongs to the app in that environment, with its kept broadcast.
    public func channel(id: String, bundleID: String, environment: APNSEnvironment) async throws -> ChannelRecord? {
        try await rows(
            """
            \(unescaped: Self.channelWithKeptMessage) WHERE c.id = \(id) AND c.bundle_id = \(bundleID)
                AND c.environment = \(environment.rawValue)
            """
        ).first.map(Self.channelRecord)
    }

    /// Keeps `message` as its channel's most recent broadcast until `untilMilliseconds`, or forgets the one kept (`nil`).
    /// False when the channel is gone.
    public func keepChannelMessage(_ message: ChannelMessage, untilMilliseconds: Int64?) async throws -> Bool {
        try await withTransaction { connection -> Bool in
            let exists = try await self.rows(
                """
                SELECT 1 FROM channel WHERE id = \(message.channelID) AND bundle_id = \(message.bundleID)
                    AND environment = \(message.environment.rawValue) FOR UPDATE
                """,
                on: connection
            )
            guard !exists.isEmpty else { return false }
            guard let untilMilliseconds else {
                try await connection.query("DELETE FROM channel_message WHERE channel_id = \(message.channelID)", logger: self.logger)
                return true
            }
            try await connection.query(
                """
                INSERT INTO channel_message (channel_id, request_id, priority, expiration, accepted_at, keep_until, payload)
                VALUES (\(message.channelID), \(message.requestID), \(message.priority), \(message.expiration),
                    \(message.acceptedAtMilliseconds), \(untilMilliseconds), \(ByteBuffer(bytes: message.payload)))
                ON CONFLICT (channel_id) DO UPDATE SET request_id = excluded.request_id, priority = excluded.priority,
                    expiration = excluded.expiration, accepted_at = excluded.accepted_at, keep_until = excluded.keep_until,
                    payload = excluded.payload
                """,
                logger: self.logger
            )
            return true
        }
    }

    /// Every channel of every app with its kept broadcast, oldest first, at most `limit` of them.
    public func allChannels(limit: Int) async throws -> [ChannelRecord] {
        try await rows("\(unescaped: Self.channelWithKeptMessage) ORDER BY c.created_at, c.id LIMIT \(max(0, limit))")
            .map(Self.channelRecord)
    }

    /// Deletes the app's channel in that environment; false when there is none with that id.
    public func deleteChannel(id: String, bundleID: String, environment: APNSEnvironment) async throws -> Bool {
        try await !rows(
            """
            DELETE FROM channel WHERE id = \(id) AND bundle_id = \(bundleID) AND environment = \(environment.rawValue)
            RETURNING id
            """
        ).isEmpty
    }

    /// The app's channels in that environment, oldest first.
    public func channels(bundleID: String, environment: APNSEnvironment) async throws -> [ChannelRecord] {
        try await rows(
            """
            \(unescaped: Self.channelWithKeptMessage) WHERE c.bundle_id = \(bundleID) AND c.environment = \(environment.rawValue)
            ORDER BY c.created_at, c.id
            """
        ).map { row in
            // As ``SQLiteStore``'s listing: the channels without their kept broadcasts.
            var record = try Self.channelRecord(row)
            record.keptMessage = nil
            return record
        }
    }

    static func channelRecord(_ row: PostgresRow) throws -> ChannelRecord {
        let (id, bundleID, environmentText, storagePolicy, pushType, createdAt, requestID, priority, expiration, acceptedAt, keepUntil, payload) =
            try row.decode((String, String, String, Int, String, Int64, String?, Int?, Int64?, Int64?, Int64?, ByteBuffer?).self)
        guard let environment = APNSEnvironment(rawValue: environmentText) else {
            throw StoreError.corruptRecord.with(detail: "channel environment \(environmentText)")
        }
        var record = ChannelRecord(
            id: id,
            bundleID: bundleID,
            environment: environment,
            storagePolicy: storagePolicy,
            pushType: pushType,
            createdAtMilliseconds: createdAt
        )
        if let requestID, let priority, let expiration, let acceptedAt, let keepUntil, let payload {
            record.keptMessage = KeptChannelMessage(
                message: ChannelMessage(
                    channelID: id,
                    bundleID: bundleID,
                    environment: environment,
                    requestID: requestID,
                    priority: priority,
                    expiration: expiration,
                    acceptedAtMilliseconds: acceptedAt,
                    payload: Array(buffer: payload)
                ),
                untilMilliseconds: keepUntil
            )
        }
        return record
    }
}
