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

    /// The channel with this id, if it belongs to the app in that environment.
    public func channel(id: String, bundleID: String, environment: APNSEnvironment) async throws -> ChannelRecord? {
        try checkOpen()
        return try await read { db in
            try Row.fetchOne(
                db,
                sql: "SELECT \(Self.channelColumns) FROM channel WHERE id = ? AND bundle_id = ? AND environment = ?",
                arguments: [id, bundleID, environment.rawValue]
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
    static func newChannelID() -> String {
        var generator = SystemRandomNumberGenerator()
        return Data((0..<16).map { _ in UInt8.random(in: 0...255, using: &generator) }).base64EncodedString()
    }

    static func channelRecord(_ row: Row) throws -> ChannelRecord {
        let environmentText: String = try row.decode(forColumn: "environment")
        guard let environment = APNSEnvironment(rawValue: environmentText) else {
            throw StoreError.corruptRecord.with(detail: "channel environment \(environmentText)")
        }
        return ChannelRecord(
            id: try row.decode(forColumn: "id"),
            bundleID: try row.decode(forColumn: "bundle_id"),
            environment: environment,
            storagePolicy: try row.decode(forColumn: "storage_policy"),
            pushType: try row.decode(forColumn: "push_type"),
            createdAtMilliseconds: try row.decode(forColumn: "created_at")
        )
    }
}
