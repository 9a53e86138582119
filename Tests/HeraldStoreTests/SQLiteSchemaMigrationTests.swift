import Foundation
import GRDB
import HeraldCore
import HeraldTestSupport
import HeraldTestTiers
import Testing

@testable import HeraldStore

@Suite("Migrating a v1 file", .tier(.unit))
struct SQLiteSchemaMigrationTests {
    static let device = "legacy-phone"
    static let older = String(repeating: "0a", count: 32)
    static let newer = String(repeating: "0b", count: 32)
    static let unrelated = String(repeating: "0c", count: 32)
    static let apnsID = "6f1e9c0b-6f6a-4e0a-9c5e-2e7e1d2c3b4a"

    /// Makes a file with only migration v1, holding tokens (two active ones of one app on one device, which v1
    /// allowed), a signing key, a notification and its trace.
    static func makeVersion1File(in directory: String) throws {
        try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
        SQLiteStore.configureSQLite()
        let pool = try DatabasePool(path: SQLiteStore.Configuration(dataDirectory: directory).databasePath)
        try SQLiteSchema.migrator.migrate(pool, upTo: "v1")
        try pool.write { db in
            let insertToken = "INSERT INTO device_token (token, bundle_id, environment, device_id, registered_at) VALUES (?, ?, ?, ?, ?)"
            try db.execute(sql: insertToken, arguments: [older, "com.example.app", "sandbox", device, 100])
            try db.execute(sql: insertToken, arguments: [newer, "com.example.app", "sandbox", device, 200])
            try db.execute(sql: insertToken, arguments: [unrelated, "com.example.app", "sandbox", nil, 50])
            try db.execute(
                sql: """
                    INSERT INTO signing_key (key_id, team_id, environment, public_key_pem, created_at)
                    VALUES ('KEY0000001', 'TEAM000001', 'both', '-----BEGIN PUBLIC KEY-----x', 1)
                    """
            )
            try db.execute(
                sql: """
                    INSERT INTO notification (apns_id, apns_id_text, token, topic, bundle_id, environment, push_type,
                        priority, payload, accepted_at)
                    VALUES (?, ?, ?, 'com.example.app', 'com.example.app', 'sandbox', 'alert', 10, ?, 300)
                    """,
                arguments: [apnsID, apnsID.uppercased(), newer, Data(#"{"aps":{"alert":"v1"}}"#.utf8)]
            )
            try db.execute(sql: "INSERT INTO trace_event (apns_id, at, kind) VALUES (?, 300, 'accepted')", arguments: [apnsID])
        }
        try pool.close()
    }

    @Test("Opening a v1 file applies v2 and keeps every row")
    func migratesAndKeepsData() async throws {
        try await withTemporaryDirectory { directory in
            try Self.makeVersion1File(in: directory)
            try await withStore(in: directory) { store in
                let applied = try await store.pool.read { try SQLiteSchema.migrator.appliedMigrations($0) }
                #expect(applied == ["v1", "v2", "v3", "v4", "v5", "v6", "v7", "v8", "v9", "v10", "v11"])

                let id = try #require(NotificationID(Self.apnsID))
                let stored = try #require(try await store.notification(id))
                #expect(stored.notification.id.text == Self.apnsID.uppercased())
                #expect(stored.notification.token.hex == Self.newer)
                #expect(stored.state == .stored)
                #expect(String(decoding: stored.notification.payload, as: UTF8.self).contains("v1"))
                #expect(try await store.trace(id).map(\.kind) == [.accepted])
                #expect(try store.signingKey(keyID: "KEY0000001")?.teamID == "TEAM000001")
                #expect(try await store.pendingNotifications().map(\.notification.id.key) == [Self.apnsID])

                let counts = try await store.counts()
                #expect(counts.deviceTokens == 3)
                #expect(counts.devices == 0)
                #expect(try store.lookup(DeviceToken(hex: Self.unrelated)!)?.isActive == true)

                // The device's tokens and notifications are found by its id, as for devices added later.
                #expect(try await store.tokens(deviceID: Self.device).map(\.token.hex) == [Self.older, Self.newer])
                #expect(try await store.listNotifications(deviceID: Self.device, limit: 10).map(\.notification.id.key) == [Self.apnsID])

                // v11 widened two CHECKs by editing the schema's text: the file is sound, and the new values pass.
                let check = try await store.pool.read { try String.fetchAll($0, sql: "PRAGMA integrity_check") }
                #expect(check == ["ok"])
                let schema = try await store.pool.read {
                    try String.fetchAll($0, sql: "SELECT sql FROM sqlite_schema WHERE name IN ('device_token', 'notification') ORDER BY name")
                }
                #expect(schema.first?.contains("'push-to-start', 'web-push'))") == true)
                #expect(schema.last?.contains("BETWEEN 1 AND 8192") == true)
            }
        }
    }

    @Test("Two active tokens of one app on one device: the newest stays active, the older is unregistered")
    func duplicateActiveTokensAreResolved() async throws {
        try await withTemporaryDirectory { directory in
            try Self.makeVersion1File(in: directory)
            try await withStore(in: directory) { store in
                let older = try #require(try store.lookup(DeviceToken(hex: Self.older)!))
                let newer = try #require(try store.lookup(DeviceToken(hex: Self.newer)!))
                #expect(older.unregisteredAtMilliseconds == 200)
                #expect(newer.isActive)
                #expect(try await store.activeToken(deviceID: Self.device, bundleID: "com.example.app", environment: .sandbox) == newer)
                // The migration moved the registry revision (four inserts, then its update), so caches of servers
                // still running notice it.
                let revision = try await store.pool.read { try Int64.fetchOne($0, sql: "SELECT value FROM registry_revision") }
                #expect(revision == 5)
            }
        }
    }

    @Test("A migrated file opens again without migrating twice")
    func reopening() async throws {
        try await withTemporaryDirectory { directory in
            try Self.makeVersion1File(in: directory)
            try await withStore(in: directory) { _ in }
            try await withStore(in: directory) { store in
                let applied = try await store.pool.read { try SQLiteSchema.migrator.appliedMigrations($0) }
                #expect(applied == ["v1", "v2", "v3", "v4", "v5", "v6", "v7", "v8", "v9", "v10", "v11"])
                #expect(try await store.counts().notifications == 1)
            }
        }
    }

    static let other = "7a2e9c0b-6f6a-4e0a-9c5e-2e7e1d2c3b4a"

    /// Makes a file migrated up to `version` holding the token ``newer``, then runs `body` in one write.
    static func makeFile(in directory: String, migratedUpTo version: String, _ body: (Database) throws -> Void) throws {
        try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
        SQLiteStore.configureSQLite()
        let pool = try DatabasePool(path: SQLiteStore.Configuration(dataDirectory: directory).databasePath)
        try SQLiteSchema.migrator.migrate(pool, upTo: version)
        try pool.write { db in
            try db.execute(
                sql: "INSERT INTO device_token (token, bundle_id, environment, registered_at) VALUES (?, 'com.example.app', 'sandbox', 1)",
                arguments: [Self.newer]
            )
            try body(db)
        }
        try pool.close()
    }

    /// Inserts a notification to ``newer`` the way a version before v4 did (no trace column).
    static func insertNotification(_ apnsID: String, acceptedAt: Int64, state: String, _ db: Database) throws {
        try db.execute(
            sql: """
                INSERT INTO notification (apns_id, apns_id_text, token, topic, bundle_id, environment, push_type,
                    priority, payload, accepted_at, state)
                VALUES (?, ?, ?, 'com.example.app', 'com.example.app', 'sandbox', 'alert', 10, X'7B7D', ?, ?)
                """,
            arguments: [apnsID, apnsID, Self.newer, acceptedAt, state]
        )
    }

    /// Makes a file migrated up to v2 whose trace of ``apnsID`` has a reused apns-id's history.
    static func makeVersion2File(in directory: String) throws {
        try makeFile(in: directory, migratedUpTo: "v2") { db in
            // Seq 1: another notification; seq 2: the apns-id's second row (its first, replaced, was deleted).
            try insertNotification(Self.other, acceptedAt: 100, state: "stored", db)
            try insertNotification(Self.apnsID, acceptedAt: 300, state: "stored", db)
            let insertEvent = "INSERT INTO trace_event (apns_id, at, kind) VALUES (?, ?, ?)"
            try db.execute(sql: insertEvent, arguments: [Self.apnsID, 200, "accepted"])
            try db.execute(sql: insertEvent, arguments: [Self.other, 210, "accepted"])
            try db.execute(sql: insertEvent, arguments: [Self.apnsID, 300, "replaced"])
            try db.execute(sql: insertEvent, arguments: [Self.apnsID, 300, "accepted"])
        }
    }

    @Test("v3 keys trace events by sequence: a v2 trace, a reused apns-id's history included, is kept whole and in order")
    func version2TracesMoveToSequence() async throws {
        try await withTemporaryDirectory { directory in
            let other = Self.other
            try Self.makeVersion2File(in: directory)

            try await withStore(in: directory) { store in
                let id = try #require(NotificationID(Self.apnsID))
                let trace = try await store.trace(id)
                #expect(trace.map(\.kind) == [.accepted, .replaced, .accepted])
                #expect(trace.map(\.atMilliseconds) == [200, 300, 300])
                #expect(trace.allSatisfy { $0.notificationKey == Self.apnsID })
                #expect(try await store.trace(try #require(NotificationID(other))).map(\.kind) == [.accepted])
                // New events land on the same trace.
                try await store.record([DeliveryChange(notificationID: id, event: .sent, atMilliseconds: 400)])
                #expect(try await store.trace(id).map(\.kind) == [.accepted, .replaced, .accepted, .sent])
                #expect(trace.map(\.id) == [1, 2, 3])
            }
        }
    }

    /// Makes a file migrated up to v3 with traces of every shape v4 converts.
    static func makeVersion3File(in directory: String) throws {
        try makeFile(in: directory, migratedUpTo: "v3") { db in
            try insertNotification(Self.other, acceptedAt: 100, state: "delivered", db)
            try insertNotification(Self.apnsID, acceptedAt: 300, state: "stored", db)
            let insertEvent = "INSERT INTO trace_event (notification_seq, apns_id, at, kind, detail) VALUES (?, ?, ?, ?, ?)"
            // Interleaved across the two notifications; a detail written with whitespace and a line feed; an event of
            // a row that is gone (dropped with the table).
            try db.execute(sql: insertEvent, arguments: [2, Self.apnsID, 200, "accepted", #"{"seq":0,"token":"t","topic":"p"}"#])
            try db.execute(sql: insertEvent, arguments: [1, Self.other, 100, "accepted", #"{"seq":1,"token":"t","topic":"p"}"#])
            try db.execute(sql: insertEvent, arguments: [2, Self.apnsID, 300, "replaced", "{\n  \"reason\" : \"duplicate-apns-id\"\n}"])
            try db.execute(sql: insertEvent, arguments: [1, Self.other, 150, "acknowledged", nil])
            try db.execute(sql: insertEvent, arguments: [2, Self.apnsID, 300, "accepted", #"{"seq":2,"token":"t","topic":"p"}"#])
            try db.execute(sql: insertEvent, arguments: [9, "gone", 400, "sent", nil])
        }
    }

    @Test("v4 keeps each trace in its notification's row: every event in order, details minified, the event table gone")
    func version3TracesMoveIntoRows() async throws {
        try await withTemporaryDirectory { directory in
            try Self.makeVersion3File(in: directory)

            try await withStore(in: directory) { store in
                let id = try #require(NotificationID(Self.apnsID))
                let trace = try await store.trace(id)
                #expect(trace.map(\.kind) == [.accepted, .replaced, .accepted])
                #expect(trace.map(\.atMilliseconds) == [200, 300, 300])
                #expect(
                    trace.map(\.detailJSON) == [
                        #"{"seq":0,"token":"t","topic":"p"}"#, #"{"reason":"duplicate-apns-id"}"#, #"{"seq":2,"token":"t","topic":"p"}"#,
                    ]
                )
                #expect(trace.map(\.id) == [1, 2, 3])
                let other = try await store.trace(try #require(NotificationID(Self.other)))
                #expect(other.map(\.kind) == [.accepted, .acknowledged])
                #expect(other.map(\.detailJSON) == [#"{"seq":1,"token":"t","topic":"p"}"#, nil])
                #expect(try await store.counts().traceEvents == 5)
                #expect(try await store.notification(id)?.state == .stored)

                // The pending list is served by the partial index; the old table and index are gone.
                #expect(try await store.pendingNotifications().map(\.notification.id.key) == [Self.apnsID])
                let schema = try await store.pool.read { db in
                    try String.fetchAll(db, sql: "SELECT name FROM sqlite_master WHERE tbl_name IN ('notification', 'trace_event') ORDER BY name")
                }
                #expect(schema == ["notification", "notification_by_token_window", "notification_stored", "sqlite_autoindex_notification_1"])
                let plan = try await store.pool.read { db in
                    try Row.fetchAll(db, sql: "EXPLAIN QUERY PLAN SELECT seq FROM notification WHERE state = 'stored' ORDER BY seq")
                        .map { row -> String in row["detail"] }.joined(separator: " ")
                }
                #expect(plan.contains("notification_stored"), "\(plan)")

                // New events append to the converted trace.
                try await store.record([DeliveryChange(notificationID: id, event: .sent, atMilliseconds: 400, detailJSON: #"{"attempt":1}"#)])
                #expect(try await store.trace(id).last?.detailJSON == #"{"attempt":1}"#)
            }
        }
    }
}
