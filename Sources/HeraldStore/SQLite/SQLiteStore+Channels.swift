import Foundation
import GRDB
import HeraldCore

extension SQLiteStore {
    static let channelColumns = "id, bundle_id, environment, storage_policy, push_type, created_at"

    /// Creates a channel with a new random id, unless the app already has `limit` channels in that environment
    /// (then `nil`: the provider API answers `CannotCreateChannelConfig`).
    public func createChannel(
        bundleID: String,
        environment: APNSEnvironment,
        storagePolicy: Int,
        pushType: String,
        limit: Int
    ) async throws -> ChannelRecord? {
        try checkOpen()
        let record = ChannelRecord(
            id: Self.newChannelID(),
            bundleID: bundleID,
            environment: environment,
            storagePolicy: storagePolicy,
            pushType: pushType,
            createdAtMilliseconds: clock.nowMilliseconds()
        )
        return try await write { db -> ChannelRecord? in
            let count =
                try Int.fetchOne(
                    db,
                    sql: "SELECT count(*) FROM channel WHERE bundle_id = ? AND environment = ?",
                    arguments: [bundleID, environment.rawValue]
                ) ?? 0
            guard count < limit else { return nil }
            try db.execute(
                sql: "INSERT INTO channel (\(Self.channelColumns)) VALUES (?, ?, ?, ?, ?, ?)",
                arguments: [record.id, bundleID, environment.rawValue, storagePolicy, pushType, record.createdAtMilliseconds]
            )
            return record
        }
    }

    /// The channel with this id, if it belongs to the app in that environment, with its kept broadcast.
    public func channel(id: String, bundleID: String, environment: APNSEnvironment) async throws -> ChannelRecord? {
        try checkOpen()
        return try await read { db in
            try Row.fetchOne(
                db,
                sql: "\(Self.channelWithKeptMessage) WHERE c.id = ? AND c.bundle_id = ? AND c.environment = ?",
                arguments: [id, bundleID, environment.rawValue]
            ).map(Self.channelRecord)
        }
    }

    /// Keeps `message` as its channel's most recent broadcast until `untilMilliseconds`, or forgets the one kept
    /// (`nil`: a broadcast with `apns-expiration: 0` supersedes it and is not kept). False when the channel is gone.
    public func keepChannelMessage(_ message: ChannelMessage, untilMilliseconds: Int64?) async throws -> Bool {
        try checkOpen()
        return try await write { db in
            guard
                try Bool.fetchOne(
                    db,
                    sql: "SELECT 1 FROM channel WHERE id = ? AND bundle_id = ? AND environment = ?",
                    arguments: [message.channelID, message.bundleID, message.environment.rawValue]
                ) != nil
            else { return false }
            guard let untilMilliseconds else {
                try db.execute(sql: "DELETE FROM channel_message WHERE channel_id = ?", arguments: [message.channelID])
                return true
            }
            try db.execute(
                sql: "INSERT OR REPLACE INTO channel_message (channel_id, \(Self.keptColumns)) VALUES (?, ?, ?, ?, ?, ?, ?)",
                arguments: [
                    message.channelID, message.requestID, message.priority, message.expiration, message.acceptedAtMilliseconds,
                    untilMilliseconds, Data(message.payload),
                ]
            )
            return true
        }
    }

    /// Every channel of every app with its kept broadcast, oldest first, at most `limit` of them (the inspection
    /// API's list).
    public func allChannels(limit: Int) async throws -> [ChannelRecord] {
        try checkOpen()
        return try await read { db in
            try Row.fetchAll(
                db,
                sql: "\(Self.channelWithKeptMessage) ORDER BY c.created_at, c.id LIMIT ?",
                arguments: [limit]
            ).map(Self.channelRecord)
        }
    }

    /// Deletes the app's channel in that environment; false when there is none with that id.
    public func deleteChannel(id: String, bundleID: String, environment: APNSEnvironment) async throws -> Bool {
        try checkOpen()
        return try await write { db in
            try db.execute(
                sql: "DELETE FROM channel WHERE id = ? AND bundle_id = ? AND environment = ?",
                arguments: [id, bundleID, environment.rawValue]
            )
            return db.changesCount == 1
        }
    }

    /// The app's channels in that environment, oldest first.
    public func channels(bundleID: String, environment: APNSEnvironment) async throws -> [ChannelRecord] {
        try checkOpen()
        return try await read { db in
            try Row.fetchAll(
                db,
                sql: "SELECT \(Self.channelColumns) FROM channel WHERE bundle_id = ? AND environment = ? ORDER BY created_at, id",
                arguments: [bundleID, environment.rawValue]
            ).map(Self.channelRecord)
        }
    }

    /// 16 random bytes in base64, as APNs' channel ids.
    package static func newChannelID() -> String {
        var generator = SystemRandomNumberGenerator()
        return Data((0..<16).map { _ in UInt8.random(in: 0...255, using: &generator) }).base64EncodedString()
    }

    static let keptColumns = "request_id, priority, expiration, accepted_at, keep_until, payload"
    /// A channel's row and its kept broadcast's (NULLs when it keeps none), in one read.
    static let channelWithKeptMessage = """
        SELECT c.id, c.bundle_id, c.environment, c.storage_policy, c.push_type, c.created_at,
            m.request_id, m.priority, m.expiration, m.accepted_at, m.keep_until, m.payload
        FROM channel c LEFT JOIN channel_message m ON m.channel_id = c.id
        """

    static func keptMessage(_ row: Row, channel: ChannelRecord) throws -> KeptChannelMessage {
        let payload: Data = try row.decode(forColumn: "payload")
        return KeptChannelMessage(
            message: ChannelMessage(
                channelID: channel.id,
                bundleID: channel.bundleID,
                environment: channel.environment,
                requestID: try row.decode(forColumn: "request_id"),
                priority: try row.decode(forColumn: "priority"),
                expiration: try row.decode(forColumn: "expiration"),
                acceptedAtMilliseconds: try row.decode(forColumn: "accepted_at"),
                payload: [UInt8](payload)
            ),
            untilMilliseconds: try row.decode(forColumn: "keep_until")
        )
    }

    static func channelRecord(_ row: Row) throws -> ChannelRecord {
        let environmentText: String = try row.decode(forColumn: "environment")
        guard let environment = APNSEnvironment(rawValue: environmentText) else {
            throw StoreError.corruptRecord.with(detail: "channel environment \(environmentText)")
        }
        var record = ChannelRecord(
            id: try row.decode(forColumn: "id"),
            bundleID: try row.decode(forColumn: "bundle_id"),
            environment: environment,
            storagePolicy: try row.decode(forColumn: "storage_policy"),
            pushType: try row.decode(forColumn: "push_type"),
            createdAtMilliseconds: try row.decode(forColumn: "created_at")
        )
        // Rows of a read joined with channel_message carry the kept broadcast, if there is one.
        if (row["request_id"] as String?) != nil { record.keptMessage = try keptMessage(row, channel: record) }
        return record
    }
}
