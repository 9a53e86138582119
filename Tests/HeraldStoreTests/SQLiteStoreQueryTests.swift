import Foundation
import GRDB
import HeraldCore
import HeraldTestSupport
import HeraldTestTiers
import Testing

@testable import HeraldStore

@Suite("Queries for the CLI", .tier(.unit))
struct SQLiteStoreQueryTests {
    @Test("A token's list reads the index windows newest first, across empty windows, and stops at the limit")
    func listAcrossWindows() async throws {
        try await withTemporaryDirectory { directory in
            try await withStore(in: directory) { store in
                let token = try await store.registerToken(bundleID: "com.example.app", environment: .sandbox, deviceID: nil)
                let other = try await store.registerToken(bundleID: "com.example.app", environment: .sandbox, deviceID: nil)
                // Sequence numbers jump by whole windows (1024) between the notifications, as after busy hours.
                let skip: @Sendable (Int) async throws -> Void = { count in
                    try await store.pool.write { db in
                        try db.execute(sql: "UPDATE sqlite_sequence SET seq = seq + ? WHERE name = 'notification'", arguments: [count])
                    }
                }
                let first = AcceptedNotification.fixture(token: token, alert: "first")
                try await store.accept(first)
                try await skip(5000)
                try await store.accept(AcceptedNotification.fixture(token: other, alert: "other"))
                try await skip(3000)
                let second = AcceptedNotification.fixture(token: token, alert: "second")
                let third = AcceptedNotification.fixture(token: token, alert: "third")
                try await store.accept(second)
                try await store.accept(third)

                #expect(try await store.listNotifications(token: token, limit: 10).map(\.notification) == [third, second, first])
                #expect(try await store.listNotifications(token: token, limit: 2).map(\.notification) == [third, second])
                #expect(try await store.listNotifications(token: other, limit: 10).map(\.notification.id) != [])
                let sequences = try await store.listNotifications(token: token, limit: 10).map(\.sequence)
                #expect(sequences.first! - sequences.last! > 8000)

                let plan = try await store.pool.read { db in
                    try Row.fetchAll(
                        db,
                        sql: """
                            EXPLAIN QUERY PLAN \(SQLiteStore.notificationSelect)
                            WHERE (n.seq >> 10) = 7 AND n.token_ref IN (1, 2) ORDER BY n.seq DESC LIMIT 5
                            """
                    ).map { row -> String in row["detail"] }.joined(separator: " | ")
                }
                // The window index finds the rows, the token's number finds its row in token_ref: no scan of either.
                #expect(plan.contains("notification_by_token_window"), "\(plan)")
                #expect(plan.contains("token_ref") && plan.contains("INTEGER PRIMARY KEY"), "\(plan)")
                #expect(!plan.contains("SCAN"), "\(plan)")

                // Many tokens are read a group at a time, the groups' lists merged newest first.
                let grouped = try await store.pool.read { db in
                    try SQLiteStore.newestNotifications(of: [other.hex, token.hex], limit: 3, tokensPerQuery: 1, db)
                        .map { row -> Int64 in row["seq"] }
                }
                #expect(grouped == Array(sequences.prefix(2)) + [sequences.last! + 5001])
            }
        }
    }

    @Test("Notifications list newest first, per token or for all, within the limit")
    func listNewestFirst() async throws {
        try await withTemporaryDirectory { directory in
            try await withStore(in: directory) { store in
                let first = try await store.registerToken(bundleID: "com.example.app", environment: .sandbox, deviceID: nil)
                let second = try await store.registerToken(bundleID: "com.example.app", environment: .sandbox, deviceID: nil)
                var sent: [AcceptedNotification] = []
                for index in 0..<6 {
                    let notification = AcceptedNotification.fixture(token: index.isMultiple(of: 2) ? first : second, alert: "n\(index)")
                    try await store.accept(notification)
                    sent.append(notification)
                }
                let forFirst = try await store.listNotifications(token: first, limit: 10)
                #expect(forFirst.map(\.notification) == [sent[4], sent[2], sent[0]])
                #expect(forFirst.map(\.sequence) == forFirst.map(\.sequence).sorted(by: >))

                let newestTwo = try await store.listNotifications(token: nil, limit: 2)
                #expect(newestTwo.map(\.notification) == [sent[5], sent[4]])
                #expect(try await store.listNotifications(token: nil, limit: -5).isEmpty)
                #expect(try await store.listNotifications(token: DeviceToken.random(), limit: 10).isEmpty)

                let counts = try await store.counts()
                #expect(counts.notifications == 6)
                #expect(counts.notificationsByState == [.stored: 6])
                #expect(counts.traceEvents == 6)
                #expect(counts.deviceTokens == 2)
            }
        }
    }

    @Test("The trace of an unknown apns-id is empty; a lookup is case-insensitive")
    func traceLookup() async throws {
        try await withTemporaryDirectory { directory in
            try await withStore(in: directory) { store in
                let token = try await store.registerToken(bundleID: "com.example.app", environment: .sandbox, deviceID: nil)
                let id = NotificationID("a1b2c3d4-0000-4000-8000-000000000001")!
                try await store.accept(AcceptedNotification.fixture(token: token, id: id, acceptedAt: 42))
                #expect(try await store.trace(.random()).isEmpty)
                let upper = NotificationID("A1B2C3D4-0000-4000-8000-000000000001")!
                let trace = try await store.trace(upper)
                #expect(trace.count == 1)
                #expect(trace.first?.atMilliseconds == 42)
                #expect(try await store.notification(upper)?.notification.id == id)
            }
        }
    }
}
