import Foundation
import GRDB
import HeraldCore
import HeraldTestSupport
import HeraldTestTiers
import Logging
import Testing

@testable import HeraldStore

@Suite("Migrating a v9 file to the smaller notification row (v10)", .tier(.unit))
struct SQLiteSchemaVersion10Tests {
    static let token = String(repeating: "1f", count: 32)
    static let otherToken = String(repeating: "2e", count: 32)
    static let delivered = "5d1e9c0b-6f6a-4e0a-9c5e-2e7e1d2c3b4a"
    static let stored = "01a21c45-852a-720c-835a-c88647d68bd6"
    static let mixedCase = "0A21c45e-852a-720c-835a-c88647d68bd6"
    static let device = "08cc02d7-bb2c-4f30-a943-27140025e057"
    static let sentDetail = #"{"attempt":1,"session":"session-3","device":"08cc02d7-bb2c-4f30-a943-27140025e057"}"#

    /// A file migrated up to v9 with three notifications: one delivered (its `apns-id` sent in uppercase, three events),
    /// one stored (a VoIP topic, a history moved from a replaced row), one with a mixed-case `apns-id`; the AUTOINCREMENT
    /// counter is past the last row, as after retention deleted the newest.
    static func makeVersion9File(in directory: String) throws {
        try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
        SQLiteStore.configureSQLite()
        let pool = try DatabasePool(path: SQLiteStore.Configuration(dataDirectory: directory).databasePath)
        try SQLiteSchema.migrator.migrate(pool, upTo: "v9")
        try pool.write { db in
            let insertToken = """
                INSERT INTO device_token (token, bundle_id, environment, device_id, registered_at)
                VALUES (?, 'com.example.app', 'sandbox', ?, ?)
                """
            try db.execute(sql: insertToken, arguments: [token, device, 10])
            try db.execute(sql: insertToken, arguments: [otherToken, nil, 20])
            let insert = """
                INSERT INTO notification (seq, apns_id, apns_id_text, token, topic, bundle_id, environment, push_type,
                    priority, payload, accepted_at, state, trace)
                VALUES (?, ?, ?, ?, ?, 'com.example.app', 'sandbox', ?, 10, ?, ?, ?, ?)
                """
            let deliveredTrace =
                #"{"at":1000,"kind":"accepted"}"# + "\n" + #"{"at":1003,"kind":"sent","detail":"# + sentDetail + "}\n"
                + #"{"at":1007,"kind":"acknowledged","detail":"# + sentDetail + "}\n"
            try db.execute(
                sql: insert,
                arguments: [
                    3, delivered, delivered.uppercased(), token, "com.example.app", "alert", Data(#"{"aps":{"alert":"one"}}"#.utf8),
                    1000, "delivered", deliveredTrace,
                ]
            )
            let storedTrace =
                #"{"at":900,"kind":"accepted","detail":{"seq":1,"token":"t","topic":"com.example.app"}}"# + "\n"
                + #"{"at":2000,"kind":"replaced","detail":{"reason":"duplicate-apns-id","previousSeq":1}}"# + "\n"
                + #"{"at":2000,"kind":"accepted"}"# + "\n"
            try db.execute(
                sql: insert,
                arguments: [
                    7, stored, stored, otherToken, "com.example.app.voip", "voip", Data(#"{"aps":{}}"#.utf8), 2000, "stored",
                    storedTrace,
                ]
            )
            try db.execute(
                sql: insert,
                arguments: [
                    8, mixedCase.lowercased(), mixedCase, token, "com.example.app", "alert", Data(#"{"aps":{"alert":"x"}}"#.utf8),
                    3000, "expired", #"{"at":3000,"kind":"accepted"}"# + "\n",
                ]
            )
            try db.execute(sql: "UPDATE sqlite_sequence SET seq = 40 WHERE name = 'notification'")
        }
        try pool.close()
    }

    @Test("Every row reads as before: ids in the form sent, bundle ids, tokens, states, traces event for event")
    func keepsEveryRow() async throws {
        try await withTemporaryDirectory { directory in
            try Self.makeVersion9File(in: directory)
            try await withStore(in: directory) { store in
                let applied = try await store.pool.read { try SQLiteSchema.migrator.appliedMigrations($0) }
                #expect(applied.suffix(2) == ["v10", "v11"])

                let delivered = try #require(try await store.notification(NotificationID(Self.delivered)!))
                #expect(delivered.sequence == 3)
                #expect(delivered.notification.id.text == Self.delivered.uppercased())
                #expect(delivered.notification.token.hex == Self.token)
                #expect(delivered.notification.bundleID == "com.example.app")
                #expect(delivered.state == .delivered)
                let trace = try await store.trace(NotificationID(Self.delivered)!)
                #expect(trace.map(\.kind) == [.accepted, .sent, .acknowledged])
                #expect(trace.map(\.atMilliseconds) == [1000, 1003, 1007])
                #expect(
                    trace.map(\.detailJSON) == [#"{"seq":3,"token":"\#(Self.token)","topic":"com.example.app"}"#, Self.sentDetail, Self.sentDetail]
                )

                let stored = try #require(try await store.notification(NotificationID(Self.stored)!))
                #expect(stored.notification.topic == "com.example.app.voip")
                #expect(stored.notification.bundleID == "com.example.app")
                #expect(stored.notification.id.text == Self.stored)
                let storedTrace = try await store.trace(NotificationID(Self.stored)!)
                #expect(storedTrace.map(\.kind) == [.accepted, .replaced, .accepted])
                #expect(storedTrace.map(\.atMilliseconds) == [900, 2000, 2000])
                #expect(storedTrace.first?.detailJSON == #"{"seq":1,"token":"t","topic":"com.example.app"}"#)
                #expect(try await store.pendingNotifications().map(\.sequence) == [7])

                let mixed = try #require(try await store.notification(NotificationID(Self.mixedCase)!))
                #expect(mixed.notification.id.text == Self.mixedCase)
                #expect(try await store.listNotifications(token: DeviceToken(hex: Self.token)!, limit: 10).map(\.sequence) == [8, 3])

                // The stored columns: 16-byte keys, the text only when it differs, the bundle id only when it differs.
                let rows = try await store.pool.read { db in
                    try Row.fetchAll(
                        db,
                        sql: """
                            SELECT seq, length(apns_id) AS keyLength, apns_id_text, topic, bundle_id, environment, token_ref, trace
                            FROM notification ORDER BY seq
                            """
                    )
                }
                #expect(rows.map { $0["keyLength"] as Int } == [16, 16, 16])
                #expect(rows.map { $0["apns_id_text"] as String? } == ["U", nil, Self.mixedCase])
                #expect(rows.map { $0["topic"] as String? } == [nil, "com.example.app.voip", nil])
                #expect(rows.map { $0["bundle_id"] as String? } == [nil, nil, nil])
                #expect(rows.map { $0["environment"] as String? } == [nil, nil, nil])
                #expect(rows.map { $0["token_ref"] as Int64 } == [1, 2, 1])
                let compact: String = rows[0]["trace"]
                #expect(compact.hasPrefix("A0\nS3 ") && compact.hasSuffix("K7 ^\n"), "\(compact.debugDescription)")
                #expect(compact.utf8.count <= 24 && compact.utf8.contains(TraceText.deviceByte), "\(compact.debugDescription)")
            }
        }
    }

    @Test("Opening an older file says that it migrates and how long it took; a new or current file says nothing")
    func migrationIsLogged() async throws {
        try await withTemporaryDirectory { directory in
            try Self.makeVersion9File(in: directory)
            let captured = CapturedLog()
            let open = { try SQLiteStore(configuration: .init(dataDirectory: directory), clock: SystemWallClock(), logger: captured.logger) }
            await (try open()).shutdown()
            #expect(Self.migrationLines(captured) == ["Migrating the store v10,v11", "Migrated the store v10,v11"])
            captured.removeAll()
            await (try open()).shutdown()
            #expect(Self.migrationLines(captured).isEmpty)
        }
        try await withTemporaryDirectory { directory in
            let captured = CapturedLog()
            await (try SQLiteStore(configuration: .init(dataDirectory: directory), clock: SystemWallClock(), logger: captured.logger)).shutdown()
            #expect(Self.migrationLines(captured).isEmpty)
            #expect(captured.messages.contains("Opened the store"))
        }
    }

    /// The migration's messages, each with its `store.migrations` metadata appended.
    static func migrationLines(_ captured: CapturedLog) -> [String] {
        captured.entries.filter { $0.message.hasPrefix("Migrat") }.map { entry in
            entry.message + (entry.metadata["store.migrations"].map { " \($0)" } ?? "")
        }
    }

    @Test("After the migration: sequence numbers go on past the old counter, pushes and deliveries are written compactly")
    func continues() async throws {
        try await withTemporaryDirectory { directory in
            try Self.makeVersion9File(in: directory)
            try await withStore(in: directory) { store in
                let token = DeviceToken(hex: Self.token)!
                let id = NotificationID("C0FFEE00-852A-420C-835A-C88647D68BD6")!
                let notification = AcceptedNotification.fixture(token: token, id: id, acceptedAt: 5000)
                let sequence = try await store.accept(notification)
                #expect(sequence == 41)
                try await store.record([
                    DeliveryChange(notificationID: id, sequence: sequence, event: .sent, atMilliseconds: 5002, detailJSON: Self.sentDetail),
                    DeliveryChange(
                        notificationID: id,
                        sequence: sequence,
                        event: .acknowledged,
                        newState: .delivered,
                        atMilliseconds: 5003,
                        detailJSON: Self.sentDetail
                    ),
                ])
                // A change without a sequence number finds its row by the 16-byte key.
                try await store.record([DeliveryChange(notificationID: id, event: .displayed, atMilliseconds: 5010, detailJSON: #"{"a":1}"#)])
                let trace = try await store.trace(id)
                #expect(trace.map(\.kind) == [.accepted, .sent, .acknowledged, .displayed])
                #expect(trace.map(\.detailJSON).dropFirst() == [Self.sentDetail, Self.sentDetail, #"{"a":1}"#])
                #expect(try await store.notification(id)?.state == .delivered)
                #expect(try await store.notification(id)?.notification.id.text == id.text)
                let bytes = try await store.pool.read { db in
                    try Int.fetchOne(db, sql: "SELECT length(trace) FROM notification WHERE seq = ?", arguments: [sequence])
                }
                #expect((bytes ?? 0) <= 32, "\(bytes ?? 0) bytes of trace")

                // A token registered after the migration gets its number from the trigger; an unknown one is refused.
                let newer = try await store.registerToken(bundleID: "com.example.app", environment: .sandbox, deviceID: nil)
                #expect(try await store.accept(AcceptedNotification.fixture(token: newer)) == 42)
                // A topic, bundle id or environment other than the token's is kept in the row and read back.
                var voip = AcceptedNotification.fixture(token: newer)
                voip.topic = "com.example.app.voip"
                voip.bundleID = "com.example.other"
                voip.environment = .production
                let voipSequence = try await store.accept(voip)
                #expect(try await store.notification(voip.id)?.notification == voip)
                let stored = try await store.pool.read { db in
                    try Row.fetchOne(db, sql: "SELECT topic, bundle_id, environment FROM notification WHERE seq = ?", arguments: [voipSequence])
                }
                #expect(stored?["topic"] as String? == "com.example.app.voip")
                #expect(stored?["bundle_id"] as String? == "com.example.other")
                #expect(stored?["environment"] as String? == "production")
                // What `token_ref` copies of a token never changes.
                await #expect(throws: (any Error).self) {
                    try await store.pool.write { db in
                        try db.execute(sql: "UPDATE device_token SET bundle_id = 'com.example.moved' WHERE token = ?", arguments: [newer.hex])
                    }
                }

                let unknown = await enqueueAndWait(store, AcceptedNotification.fixture(token: DeviceToken(hex: String(repeating: "3d", count: 32))!))
                guard case .failure(let error) = unknown else {
                    Issue.record("a push to an unknown token was stored")
                    return
                }
                #expect(error == .unknownDeviceToken, "\(error)")
            }
        }
    }
}
