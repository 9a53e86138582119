import HeraldCore
import HeraldStore
import HeraldTestSupport
import HeraldTestTiers
import Testing

@testable import HeraldDelivery

@Suite("Delivery state machine: several sessions of a device, memory", .tier(.unit))
struct DeliveryStateMachineSessionTests {
    let token = DeviceToken.random()

    @Test("Reconnect before the old close is seen: the new session wins, the late close keeps the token online")
    func newestSessionWins() throws {
        var machine = DeliveryStateMachine(policy: DeliveryPolicy())
        let old = RecordingSession(deviceID: "phone")
        let new = RecordingSession(deviceID: "phone")
        _ = machine.sessionOpened(old, tokens: [token], now: t0)
        let unacknowledged = AcceptedNotification.fixture(token: token)
        _ = machine.accepted(unacknowledged, now: t0)

        // The new session takes the token: what the old one did not acknowledge is sent again on it.
        let opened = machine.sessionOpened(new, tokens: [token], now: t0 + 10)
        #expect(opened.changes.kinds == [.stored, .sent])
        #expect(detail(try #require(opened.changes.first))["reason"] as? String == "session-replaced")
        #expect(opened.sends.map(\.session) == [new.id])
        #expect(opened.sends.map(\.attempt) == [2])

        let fresh = AcceptedNotification.fixture(token: token)
        #expect(machine.accepted(fresh, now: t0 + 11).sends.map(\.session) == [new.id])

        #expect(machine.sessionClosed(old.id, now: t0 + 20).isEmpty)
        #expect(machine.isOnline(token))
        #expect(machine.sessionCount(deviceID: "phone") == 1)
        let later = AcceptedNotification.fixture(token: token)
        #expect(machine.accepted(later, now: t0 + 21).sends.map(\.session) == [new.id])
    }

    @Test("After a takeover, an acknowledgement still coming from the old session counts")
    func acknowledgementFromReplacedSession() {
        var machine = DeliveryStateMachine(policy: DeliveryPolicy())
        let old = RecordingSession()
        let new = RecordingSession()
        _ = machine.sessionOpened(old, tokens: [token], now: t0)
        let notification = AcceptedNotification.fixture(token: token)
        _ = machine.accepted(notification, now: t0)
        _ = machine.sessionOpened(new, tokens: [token], now: t0 + 1)
        let acknowledged = machine.acknowledged(notification.id, session: old.id, now: t0 + 2)
        #expect(acknowledged.changes.map(\.newState) == [.delivered])
        #expect(machine.outstandingCount == 0)
    }

    @Test("An older session registering a token a newer one holds does not take it")
    func olderSessionDoesNotSteal() {
        var machine = DeliveryStateMachine(policy: DeliveryPolicy())
        let old = RecordingSession()
        let new = RecordingSession()
        _ = machine.sessionOpened(old, tokens: [], now: t0)
        _ = machine.sessionOpened(new, tokens: [token], now: t0)
        #expect(machine.tokenRegistered(token, session: old.id, now: t0 + 1).isEmpty)
        let notification = AcceptedNotification.fixture(token: token)
        #expect(machine.accepted(notification, now: t0 + 2).sends.map(\.session) == [new.id])
    }

    @Test("The newest session closes while an older one still holds the token: the token moves back to it")
    func tokenMovesToRemainingSession() {
        var machine = DeliveryStateMachine(policy: DeliveryPolicy())
        let old = RecordingSession(deviceID: "phone")
        let new = RecordingSession(deviceID: "phone")
        _ = machine.sessionOpened(old, tokens: [token], now: t0)
        _ = machine.sessionOpened(new, tokens: [token], now: t0 + 1)
        let notification = AcceptedNotification.fixture(token: token)
        _ = machine.accepted(notification, now: t0 + 2)
        let closed = machine.sessionClosed(new.id, now: t0 + 3)
        #expect(closed.changes.kinds == [.stored, .sent])
        #expect(closed.sends.map(\.session) == [old.id])
        #expect(closed.sends.map(\.attempt) == [2])
        #expect(machine.isOnline(token))
        #expect(machine.sessionClosed(old.id, now: t0 + 4).changes.kinds == [.stored])
        #expect(!machine.isOnline(token))
        #expect(machine.sessionCount(deviceID: "phone") == 0)
    }

    @Test("Closing an unknown session or acknowledging on one does nothing")
    func unknownSession() {
        var machine = DeliveryStateMachine(policy: DeliveryPolicy())
        let ghost = DeviceSessionID.next()
        #expect(machine.sessionClosed(ghost, now: t0).isEmpty)
        #expect(machine.acknowledged(.random(), session: ghost, now: t0).isEmpty)
        #expect(machine.tokenRegistered(token, session: ghost, now: t0).isEmpty)
        #expect(!machine.isOnline(token))
    }

    @Test("Redelivery is oldest first across the tokens of a session")
    func oldestFirstAcrossTokens() {
        var policy = DeliveryPolicy()
        policy.offlineSlotsPerApp = 2
        var machine = DeliveryStateMachine(policy: policy)
        let other = DeviceToken.random()
        let a = AcceptedNotification.fixture(token: token)
        let b = AcceptedNotification.fixture(token: other)
        let c = AcceptedNotification.fixture(token: token)
        for notification in [a, b, c] { _ = machine.accepted(notification, now: t0) }
        #expect(machine.sessionOpened(RecordingSession(), tokens: [other, token], now: t0 + 1).sentIDs == [a.id, b.id, c.id])
    }

    @Test("Memory is bounded: delivered notifications leave memory, stale deadlines are compacted")
    func boundedMemory() {
        var machine = DeliveryStateMachine(policy: DeliveryPolicy())
        let session = RecordingSession()
        for round in 0..<3000 {
            let notification = AcceptedNotification.fixture(token: token)
            _ = machine.accepted(notification, now: t0 + Int64(round))
            _ = machine.sessionOpened(session, tokens: [token], now: t0 + Int64(round))
            _ = machine.acknowledged(notification.id, session: session.id, now: t0 + Int64(round))
            _ = machine.sessionClosed(session.id, now: t0 + Int64(round))
        }
        #expect(machine.entries.isEmpty)
        #expect(machine.queues.isEmpty)
        #expect(machine.sessions.isEmpty)
        #expect(machine.owners.isEmpty)
        #expect(machine.deviceSessions.isEmpty)
        #expect(machine.deadlines.count == 3000)
        _ = machine.tick(now: t0 + 3000)
        #expect(machine.deadlines.count == 0)
    }
}

@Suite("Delivery helpers: deadline queue, trace detail", .tier(.unit))
struct DeliveryHelperTests {
    @Test("The deadline queue yields the earliest deadline first, older first among equals")
    func deadlineOrder() {
        var queue = DeadlineQueue()
        let deadlines: [Int64] = [50, 10, 40, 10, 30, 20, 60, 0]
        for (order, deadline) in deadlines.enumerated() {
            queue.push(.init(deadline: deadline, order: UInt64(order), key: "k\(order)"))
        }
        var popped: [String] = []
        while let item = queue.removeFirst() { popped.append(item.key) }
        #expect(popped == ["k7", "k1", "k3", "k5", "k4", "k2", "k0", "k6"])
        let rebuilt = DeadlineQueue(deadlines.enumerated().map { .init(deadline: $1, order: UInt64($0), key: "k\($0)") })
        #expect(rebuilt.first?.key == "k7")
        #expect(rebuilt.count == deadlines.count)
    }

    @Test("Trace detail: a JSON object in key order, strings escaped, nil fields left out")
    func traceDetail() {
        let text = TraceDetail.object([
            "reason": .string("a \"quoted\" \\ line\n\u{1}"), "attempt": .int(2), "late": .bool(true), "absent": nil,
        ])
        #expect(text == #"{"reason":"a \"quoted\" \\ line\n\u0001","attempt":2,"late":true}"#)
        #expect(TraceDetail.object([:]) == "{}")
        // Strings without anything to escape take the fast path; the output is the same JSON.
        let plain = TraceDetail.object(["by": .string("6F1E9C0B-6F6A-4E0A-9C5E-2E7E1D2C3B4A"), "device": .string("résumé 🔔"), "empty": .string("")])
        #expect(plain == #"{"by":"6F1E9C0B-6F6A-4E0A-9C5E-2E7E1D2C3B4A","device":"résumé 🔔","empty":""}"#)
        #expect(TraceDetail.object(["tab": .string("a\tb"), "slash": .string("a/b")]) == #"{"tab":"a\tb","slash":"a/b"}"#)
    }
}
