import HeraldCore
import HeraldStore
import HeraldTestSupport
import HeraldTestTiers
import Testing

@testable import HeraldDelivery

@Suite("A notification's sent change waits for its next change (HeldSentChanges)", .tier(.unit))
struct HeldSentChangesTests {
    let id = NotificationID.random()

    func change(_ event: TraceEventKind, _ sequence: Int64?, state: NotificationState? = nil, at: Int64 = t0) -> DeliveryChange {
        DeliveryChange(notificationID: id, sequence: sequence, event: event, newState: state, atMilliseconds: at)
    }

    @Test("A sent is held; the next change of its sequence takes it along, in order")
    func heldUntilNextChange() {
        var held = HeldSentChanges(holdMilliseconds: 200)
        var changes: [DeliveryChange] = []
        held.route(change(.sent, 7), now: t0, into: &changes)
        #expect(changes.isEmpty)
        #expect(held.count == 1)
        held.route(change(.acknowledged, 7, state: .delivered, at: t0 + 3), now: t0 + 3, into: &changes)
        #expect(changes.map(\.event) == [.sent, .acknowledged])
        #expect(changes.map(\.atMilliseconds) == [t0, t0 + 3])
        #expect(held.count == 0)
    }

    @Test("Changes of other sequences, and changes without one, pass at once and leave the held sent held")
    func otherChangesPass() {
        var held = HeldSentChanges(holdMilliseconds: 200)
        var changes: [DeliveryChange] = []
        held.route(change(.sent, 7), now: t0, into: &changes)
        held.route(change(.acknowledged, 8, state: .delivered), now: t0, into: &changes)
        held.route(change(.stored, nil), now: t0, into: &changes)
        #expect(changes.map(\.sequence) == [8, nil])
        #expect(held.count == 1)
    }

    @Test("A second sent of one sequence (a resend) writes the first and holds the second")
    func resend() {
        var held = HeldSentChanges(holdMilliseconds: 200)
        var changes: [DeliveryChange] = []
        held.route(change(.sent, 7, at: t0), now: t0, into: &changes)
        held.route(change(.sent, 7, at: t0 + 50), now: t0 + 50, into: &changes)
        #expect(changes.map(\.atMilliseconds) == [t0])
        #expect(held.count == 1)
        // The first hold's place in the order is stale: only the second is released, once its own time is up.
        held.releaseExpired(now: t0 + 200, into: &changes)
        #expect(changes.count == 1)
        held.releaseExpired(now: t0 + 250, into: &changes)
        #expect(changes.map(\.atMilliseconds) == [t0, t0 + 50])
        #expect(held.count == 0)
    }

    @Test("After the hold the sents are released, oldest first; releaseAll takes the rest")
    func expiry() {
        var held = HeldSentChanges(holdMilliseconds: 200)
        var changes: [DeliveryChange] = []
        for sequence in Int64(1)...3 { held.route(change(.sent, sequence), now: t0 + sequence * 100, into: &changes) }
        held.releaseExpired(now: t0 + 299, into: &changes)
        #expect(changes.isEmpty)
        held.releaseExpired(now: t0 + 300, into: &changes)
        #expect(changes.map(\.sequence) == [1])
        held.releaseExpired(now: t0 + 450, into: &changes)
        #expect(changes.map(\.sequence) == [1, 2])
        held.releaseAll(into: &changes)
        #expect(changes.map(\.sequence) == [1, 2, 3])
        #expect(held.count == 0)
    }

    @Test("A hold of zero holds nothing; a sent without a sequence is never held")
    func nothingHeld() {
        var off = HeldSentChanges(holdMilliseconds: 0)
        var changes: [DeliveryChange] = []
        off.route(change(.sent, 7), now: t0, into: &changes)
        var on = HeldSentChanges(holdMilliseconds: 200)
        on.route(change(.sent, nil), now: t0, into: &changes)
        #expect(changes.map(\.event) == [.sent, .sent])
        #expect(off.count == 0 && on.count == 0)
    }

    @Test("Many holds released in turn keep the order list short")
    func manyHolds() {
        var held = HeldSentChanges(holdMilliseconds: 10)
        var changes: [DeliveryChange] = []
        for sequence in Int64(1)...5000 {
            held.route(change(.sent, sequence), now: sequence, into: &changes)
            if sequence.isMultiple(of: 2) { held.route(change(.acknowledged, sequence - 1, state: .delivered), now: sequence, into: &changes) }
            held.releaseExpired(now: sequence, into: &changes)
        }
        held.releaseAll(into: &changes)
        #expect(changes.filter { $0.event == .sent }.count == 5000)
        #expect(Set(changes.filter { $0.event == .sent }.compactMap(\.sequence)).count == 5000)
        #expect(held.count == 0)
    }
}

@Suite("Delivery engine: sent and acknowledged reach the store together", .tier(.unit))
struct DeliveryEngineSentHoldTests {
    let token = DeviceToken.random()

    @Test("An acknowledged notification's sent and acknowledged are written in one batch, in order")
    func oneWrite() async throws {
        let store = InMemoryDeliveryStore()
        let token = token
        try await withRunningEngine(store: store) { engine in
            let session = RecordingSession(deviceID: "phone")
            engine.sessionOpened(session, tokens: [token])
            let notification = AcceptedNotification.fixture(token: token)
            engine.accepted(notification, sequence: 41)
            await engine.waitUntilProcessed()
            #expect(session.deliveries.count == 1)
            engine.acknowledged(notification.id, session: session.id)
            await engine.waitUntilIdle()
            let batches = await store.batches
            #expect(batches.count == 1)
            #expect(batches.first?.map(\.event) == [.sent, .acknowledged])
            #expect(batches.first?.map(\.sequence) == [41, 41])
        }
    }

    @Test("With a hold of zero each sent is written on its own, before its acknowledgement")
    func holdOff() async throws {
        let store = InMemoryDeliveryStore()
        let token = token
        var configuration = DeliveryEngine.Configuration.forTests
        configuration.sentTraceHold = .zero
        try await withRunningEngine(store: store, configuration: configuration) { engine in
            let session = RecordingSession(deviceID: "phone")
            engine.sessionOpened(session, tokens: [token])
            let notification = AcceptedNotification.fixture(token: token)
            engine.accepted(notification, sequence: 41)
            await engine.waitUntilProcessed()
            await store.waitForChanges(count: 1)
            engine.acknowledged(notification.id, session: session.id)
            await engine.waitUntilIdle()
            #expect(await store.batches.map { $0.map(\.event) } == [[.sent], [.acknowledged]])
        }
    }

    @Test("A sent that no acknowledgement follows is written at the first tick after the hold")
    func releasedByTick() async throws {
        let store = InMemoryDeliveryStore()
        let token = token
        let clock = ManualWallClock(milliseconds: t0)
        try await withRunningEngine(store: store, clock: clock) { engine in
            let session = RecordingSession(deviceID: "phone")
            engine.sessionOpened(session, tokens: [token])
            engine.accepted(AcceptedNotification.fixture(token: token), sequence: 41)
            // Sent (and held) at t0.
            await engine.waitUntilProcessed()
            clock.set(milliseconds: t0 + 199)
            engine.tick()
            await engine.waitUntilProcessed()
            #expect(await store.changes.isEmpty)
            clock.set(milliseconds: t0 + 200)
            engine.tick()
            await store.waitForChanges(count: 1)
            #expect(await store.changes.kinds == [.sent])
            #expect(await store.changes.map(\.atMilliseconds) == [t0])
        }
    }

    @Test("A graceful shutdown writes the held sents")
    func shutdown() async throws {
        let store = InMemoryDeliveryStore()
        let token = token
        try await withRunningEngine(store: store) { engine in
            let session = RecordingSession(deviceID: "phone")
            engine.sessionOpened(session, tokens: [token])
            engine.accepted(AcceptedNotification.fixture(token: token), sequence: 41)
            await engine.waitUntilProcessed()
            #expect(await store.changes.isEmpty)
        }
        #expect(await store.changes.kinds == [.sent])
    }
}
