import Foundation
import GRDB
import HeraldCore

extension SQLiteStore {
    /// Adds a signing key; the server's cache sees it at once, other processes' caches on their next refresh.
    public func addSigningKey(_ key: SigningKeyRecord) async throws {
        try checkOpen()
        let topicsJSON = try key.topics.map(Self.encodeTopics)
        try await write { db in
            try db.execute(
                sql: """
                    INSERT INTO signing_key (key_id, team_id, environment, topics, public_key_pem, created_at)
                    VALUES (?, ?, ?, ?, ?, ?) ON CONFLICT (key_id) DO NOTHING
                    """,
                arguments: [key.keyID, key.teamID, key.scope.rawValue, topicsJSON, key.publicKeyPEM, key.createdAtMilliseconds]
            )
            guard db.changesCount == 1 else { throw StoreError.duplicateSigningKey.with(detail: key.keyID) }
        }
        registry.withLock { $0.store(key) }
    }

    /// Every signing key, oldest first, read from the file (not the cache).
    public func signingKeys() async throws -> [SigningKeyRecord] {
        try checkOpen()
        return try await read { db in
            try Row.fetchAll(db, sql: "SELECT \(Self.signingKeyColumns) FROM signing_key ORDER BY created_at, key_id")
                .map(Self.signingKeyRecord)
        }
    }

    /// Removes a signing key; fails with ``StoreError/unknownSigningKey`` when there is none.
    public func removeSigningKey(keyID: String) async throws {
        try checkOpen()
        try await write { db in
            try db.execute(sql: "DELETE FROM signing_key WHERE key_id = ?", arguments: [keyID])
            guard db.changesCount == 1 else { throw StoreError.unknownSigningKey.with(detail: keyID) }
        }
        registry.withLock { $0.removeSigningKey(keyID) }
    }

    static func signingKeyRecord(_ row: Row) throws -> SigningKeyRecord {
        try SigningKeyRecord.stored(
            keyID: try row.decode(forColumn: "key_id"),
            teamID: try row.decode(forColumn: "team_id"),
            scope: try row.decode(forColumn: "environment"),
            topicsJSON: try row.decode(forColumn: "topics"),
            publicKeyPEM: try row.decode(forColumn: "public_key_pem"),
            createdAtMilliseconds: try row.decode(forColumn: "created_at")
        )
    }

    private static func encodeTopics(_ topics: [String]) throws -> String {
        do {
            return String(decoding: try JSONEncoder().encode(topics), as: UTF8.self)
        } catch {
            throw StoreError.invalidRecord.with(detail: "topics: \(error)")
        }
    }
}
