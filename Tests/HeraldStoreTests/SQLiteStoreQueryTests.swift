import Foundation
import HeraldCore
import HeraldTestTiers
import Testing

@testable import HeraldStore

@Suite("Queries for the CLI", .tier(.unit))
struct SQLiteStoreQueryTests {
    @Test("Notifications list newest first, per token or for all, within the limit")
    func listNewestFirst() async throws {
        try await withTemporaryDirectory { directory in
            try await withStore(in: directory) { store in
                let first = try await store.registerToken(bundleID: "com.example.app", environment: .sandbox, deviceID: nil)
                let second = try await store.registerToken(bundleID: "com.example.app", environment: .sandbox, deviceID: nil)
                var sent: [AcceptedNotification] = []
                for index in 0..<6 {
                    let notification = makeNotification(token: index.isMultiple(of: 2) ? first : second, body: "n\(index)")
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
                try await store.accept(makeNotification(token: token, id: id, acceptedAt: 42))
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
