import Foundation
import HeraldCore
import HeraldStore
import HeraldTestSupport
import HeraldTestTiers
import Logging
import Testing

@testable import HeraldDelivery

/// Opens a SQLite store in a fresh temporary folder, runs the body, and always shuts it down and removes it.
private func withSQLiteStore<T>(_ body: (SQLiteStore) async throws -> T) async throws -> T {
    let path = FileManager.default.temporaryDirectory.appendingPathComponent("herald-delivery-\(UUID().uuidString)").path
    defer { try? FileManager.default.removeItem(atPath: path) }
    return try await withStore(in: path, body)
}

@Suite("Delivery engine with a real SQLite store", .tier(.unit))
struct DeliveryEngineSQLiteTests {
    @Test("Accept, deliver, acknowledge: the trace reads accepted, sent, acknowledged and the state is delivered")
    func deliverAndAcknowledge() async throws {
        try await withSQLiteStore { store in
            let token = try await store.registerToken(bundleID: "com.example.app", environment: .sandbox, deviceID: nil)
            let notification = AcceptedNotification.fixture(token: token, acceptedAt: SystemWallClock().nowMilliseconds())
            try await store.accept(notification)
            try await withRunningEngine(store: store, clock: ManualWallClock()) { engine in
                let session = RecordingSession(deviceID: "phone")
                engine.sessionOpened(session, tokens: [token])
                engine.accepted(notification)
                await engine.waitUntilIdle()
                #expect(session.deliveredIDs == [notification.id])
                engine.acknowledged(notification.id, session: session.id)
                await engine.waitUntilIdle()
            }
            let trace = try await store.trace(notification.id)
            #expect(trace.map(\.kind) == [.accepted, .sent, .acknowledged])
            let sent = try #require(trace.first { $0.kind == .sent })
            let detail = try #require(try JSONSerialization.jsonObject(with: Data((sent.detailJSON ?? "").utf8)) as? [String: Any])
            #expect(detail["attempt"] as? Int == 1)
            #expect(detail["device"] as? String == "phone")
            #expect(try await store.notification(notification.id)?.state == .delivered)
            #expect(try await store.pendingNotifications().isEmpty)
        }
    }

    @Test("An apns-id reused while the older is outstanding: each ack is applied to its own notification")
    func reusedWhileOutstanding() async throws {
        try await withSQLiteStore { store in
            let token = try await store.registerToken(bundleID: "com.example.app", environment: .sandbox, deviceID: nil)
            let now = SystemWallClock().nowMilliseconds()
            let older = AcceptedNotification.fixture(token: token, acceptedAt: now)
            let newer = AcceptedNotification.fixture(token: token, id: older.id, acceptedAt: now + 1)
            try await withRunningEngine(store: store, clock: ManualWallClock()) { engine in
                let session = RecordingSession(deviceID: "phone")
                engine.sessionOpened(session, tokens: [token])
                engine.accepted(older, sequence: try await store.accept(older))
                await engine.waitUntilIdle()
                engine.accepted(newer, sequence: try await store.accept(newer))
                await engine.waitUntilIdle()
                #expect(session.deliveries.map(\.notification.acceptedAtMilliseconds) == [now])

                // The older one's ack: the newer is still `stored`, and goes out now.
                engine.acknowledged(older.id, session: session.id)
                await engine.waitUntilIdle()
                #expect(try await store.notification(older.id)?.state == .stored)
                #expect(session.deliveries.map(\.notification.acceptedAtMilliseconds) == [now, now + 1])

                engine.acknowledged(newer.id, session: session.id)
                await engine.waitUntilIdle()
            }
            #expect(try await store.notification(newer.id)?.state == .delivered)
            let trace = try await store.trace(newer.id)
            #expect(trace.map(\.kind) == [.accepted, .sent, .replaced, .accepted, .stored, .acknowledged, .sent, .acknowledged])
        }
    }

    @Test("After a restart, restore() sends what was stored; what was replaced offline stays replaced")
    func restoreAfterRestart() async throws {
        try await withSQLiteStore { store in
            let token = try await store.registerToken(bundleID: "com.example.app", environment: .sandbox, deviceID: nil)
            let now = SystemWallClock().nowMilliseconds()
            let older = AcceptedNotification.fixture(token: token, acceptedAt: now)
            let newer = AcceptedNotification.fixture(token: token, acceptedAt: now + 1)
            try await store.accept(older)
            try await store.accept(newer)
            // The first run: the device is offline; the older one is replaced by the newer (one slot per app).
            try await withRunningEngine(store: store, clock: ManualWallClock()) { engine in
                engine.accepted(older)
                engine.accepted(newer)
                await engine.waitUntilIdle()
            }
            #expect(try await store.notification(older.id)?.state == .replaced)
            #expect(try await store.pendingNotifications().map(\.notification.id) == [newer.id])

            // The second run (a restart): restored, then sent when the device connects.
            try await withRunningEngine(store: store, clock: ManualWallClock(), restoreFirst: true) { engine in
                let session = RecordingSession()
                engine.sessionOpened(session, tokens: [token])
                await engine.waitUntilIdle()
                #expect(session.deliveredIDs == [newer.id])
                engine.acknowledged(newer.id, session: session.id)
                await engine.waitUntilIdle()
            }
            #expect(try await store.trace(newer.id).map(\.kind) == [.accepted, .stored, .sent, .acknowledged])
            #expect(try await store.notification(newer.id)?.state == .delivered)
            #expect(try await store.trace(older.id).map(\.kind) == [.accepted, .stored, .replaced])
        }
    }
}
