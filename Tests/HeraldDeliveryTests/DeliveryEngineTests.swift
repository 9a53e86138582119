import HeraldCore
import HeraldStore
import HeraldTestSupport
import HeraldTestTiers
import Logging
import ServiceLifecycle
import Testing

@testable import HeraldDelivery

@Suite("Delivery engine (in-memory store and sessions)", .tier(.unit))
struct DeliveryEngineTests {
    let token = DeviceToken.random()

    @Test("Online: delivered to the session at once, traced sent; the ack makes it delivered")
    func deliverAndAcknowledge() async throws {
        let store = InMemoryDeliveryStore()
        let token = token
        try await withRunningEngine(store: store) { engine in
            let session = RecordingSession(deviceID: "phone")
            engine.sessionOpened(session, tokens: [token])
            let notification = AcceptedNotification.fixture(token: token)
            engine.accepted(notification)
            await engine.waitUntilIdle()
            #expect(session.deliveries == [NotificationDelivery(notification: notification, attempt: 1)])
            #expect(engine.counts == DeliveryCounts(pending: 0, outstanding: 1))
            engine.acknowledged(notification.id, session: session.id)
            await engine.waitUntilIdle()
            let changes = await store.changes
            #expect(changes.kinds == [.sent, .acknowledged])
            #expect(changes.map(\.newState) == [nil, .delivered])
            #expect(changes.allSatisfy { $0.atMilliseconds == t0 })
            #expect(engine.counts == DeliveryCounts(pending: 0, outstanding: 0))
        }
    }

    @Test("An unknown acknowledgement is refused on the session with unknown-notification")
    func unknownAcknowledgement() async throws {
        let store = InMemoryDeliveryStore()
        let token = token
        try await withRunningEngine(store: store) { engine in
            let session = RecordingSession()
            engine.sessionOpened(session, tokens: [token])
            let id = NotificationID.random()
            engine.acknowledged(id, session: session.id)
            await engine.waitUntilIdle()
            #expect(session.refusals == [RecordingSession.Refusal(id: id, code: "unknown-notification")])
            #expect(await store.changes.isEmpty)
        }
    }

    @Test("Redelivery: a closed session's unacknowledged notification goes to the next session as attempt 2")
    func redeliveryAfterClose() async throws {
        let store = InMemoryDeliveryStore()
        let token = token
        try await withRunningEngine(store: store) { engine in
            let first = RecordingSession()
            engine.sessionOpened(first, tokens: [token])
            let notification = AcceptedNotification.fixture(token: token)
            engine.accepted(notification)
            engine.sessionClosed(first.id)
            let second = RecordingSession()
            engine.sessionOpened(second, tokens: [token])
            await engine.waitUntilIdle()
            #expect(first.deliveries.map(\.attempt) == [1])
            #expect(second.deliveries == [NotificationDelivery(notification: notification, attempt: 2)])
            #expect(await store.changes.kinds == [.sent, .stored, .sent])
        }
    }

    @Test("Online devices and counts are published for the inspection API")
    func inspection() async throws {
        let store = InMemoryDeliveryStore()
        let token = token
        try await withRunningEngine(store: store) { engine in
            let first = RecordingSession(deviceID: "phone")
            let second = RecordingSession(deviceID: "phone")
            engine.sessionOpened(first, tokens: [token])
            engine.sessionOpened(second, tokens: [token])
            engine.sessionOpened(RecordingSession(deviceID: "tablet"), tokens: [])
            engine.accepted(AcceptedNotification.fixture(token: DeviceToken.random()))
            await engine.waitUntilIdle()
            #expect(engine.onlineDeviceIDs == ["phone", "tablet"])
            #expect(engine.isOnline(deviceID: "phone"))
            #expect(engine.counts == DeliveryCounts(pending: 1, outstanding: 0))
            engine.sessionClosed(first.id)
            await engine.waitUntilIdle()
            #expect(engine.isOnline(deviceID: "phone"))
            engine.sessionClosed(second.id)
            await engine.waitUntilIdle()
            #expect(!engine.isOnline(deviceID: "phone"))
            #expect(engine.onlineDeviceIDs == ["tablet"])
        }
    }

    @Test("restore(): stored notifications are delivered when the device connects; expired ones are recorded")
    func restoreFromStore() async throws {
        let token = token
        let waiting = AcceptedNotification.fixture(token: token)
        let expired = AcceptedNotification.fixture(token: token, expiration: t0 / 1000 - 1)
        let store = InMemoryDeliveryStore(pending: [
            StoredNotification(sequence: 1, notification: waiting, state: .stored),
            StoredNotification(sequence: 2, notification: expired, state: .stored),
        ])
        try await withRunningEngine(store: store, restoreFirst: true) { engine in
            await engine.waitUntilIdle()
            #expect(engine.counts.pending == 1)
            #expect(await store.changes.map(\.newState) == [.expired])
            let session = RecordingSession()
            engine.sessionOpened(session, tokens: [token])
            await engine.waitUntilIdle()
            #expect(session.deliveredIDs == [waiting.id])
        }
    }

    @Test("Low priority: held until the burst window passed, then flushed by a tick")
    func burstOnTick() async throws {
        let store = InMemoryDeliveryStore()
        let clock = ManualWallClock(milliseconds: t0)
        let token = token
        try await withRunningEngine(store: store, clock: clock) { engine in
            let session = RecordingSession()
            engine.sessionOpened(session, tokens: [token])
            engine.accepted(AcceptedNotification.fixture(token: token, priority: .low))
            engine.tick()
            await engine.waitUntilIdle()
            #expect(session.deliveries.isEmpty)
            clock.advance(seconds: 1)
            engine.tick()
            await engine.waitUntilIdle()
            #expect(session.deliveries.count == 1)
        }
    }

    @Test("The ticker of run() flushes held notifications without being asked")
    func tickerRuns() async throws {
        let store = InMemoryDeliveryStore()
        let clock = ManualWallClock(milliseconds: t0)
        let token = token
        var configuration = DeliveryEngine.Configuration.forTests
        configuration.tickInterval = .milliseconds(2)
        try await withRunningEngine(store: store, clock: clock, configuration: configuration) { engine in
            let session = RecordingSession()
            engine.sessionOpened(session, tokens: [token])
            engine.accepted(AcceptedNotification.fixture(token: token, priority: .low))
            await engine.waitUntilIdle()
            clock.advance(seconds: 1)
            // Waits for the ticker (not for a timing rule), with a deadline.
            try await withDeadline("the ticker's send of the low-priority push") { await session.waitForDeliveries(count: 1) }
            #expect(session.deliveries.count == 1)
        }
    }
}
