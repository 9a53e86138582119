import HeraldCore
import HeraldStore
import HeraldTestSupport
import HeraldTestTiers
import Testing

@testable import HeraldDelivery

/// The time every test starts at (the default `acceptedAt` of ``makeNotification``).
let t0: Int64 = 1_700_000_000_000

@Suite("Delivery state machine: online, offline, priority, acknowledgement", .tier(.unit))
struct DeliveryStateMachineTests {
    let token = DeviceToken.random()

    @Test("Accepted for an online token: sent at once as attempt 1, traced sent with attempt, session and device")
    func onlineSendsAtOnce() throws {
        var machine = DeliveryStateMachine(policy: DeliveryPolicy())
        let session = RecordingSession(deviceID: "phone")
        #expect(machine.sessionOpened(session, tokens: [token], now: t0).isEmpty)
        let notification = AcceptedNotification.fixture(token: token)
        let actions = machine.accepted(notification, now: t0)
        #expect(actions.sends.map(\.attempt) == [1])
        #expect(actions.sentIDs == [notification.id])
        let sent = try #require(actions.changes.first)
        #expect(sent.event == .sent)
        #expect(sent.newState == nil)
        #expect(sent.atMilliseconds == t0)
        #expect(detail(sent)["attempt"] as? Int == 1)
        #expect(detail(sent)["session"] as? String == session.id.description)
        #expect(detail(sent)["device"] as? String == "phone")
        #expect(machine.outstandingCount == 1)
        #expect(machine.pendingCount == 0)
    }

    @Test("Accepted for an offline token: stored, not sent; sent when a session with the token opens")
    func offlineStoresThenSendsOnConnect() throws {
        var machine = DeliveryStateMachine(policy: DeliveryPolicy())
        let notification = AcceptedNotification.fixture(token: token)
        let accepted = machine.accepted(notification, now: t0)
        #expect(accepted.sends.isEmpty)
        let stored = try #require(accepted.changes.first)
        #expect(stored.event == .stored)
        #expect(stored.newState == nil)
        #expect(detail(stored)["reason"] as? String == "device-offline")
        #expect(detail(stored)["expiresAt"] as? Int64 == t0 + 30 * 24 * 3_600_000)
        #expect(machine.pendingCount == 1)

        let session = RecordingSession()
        let opened = machine.sessionOpened(session, tokens: [token], now: t0 + 5)
        #expect(opened.sentIDs == [notification.id])
        #expect(opened.sends.map(\.attempt) == [1])
        #expect(opened.changes.kinds == [.sent])
    }

    @Test("A session holding other tokens does not make this token online")
    func otherTokensStayOffline() {
        var machine = DeliveryStateMachine(policy: DeliveryPolicy())
        _ = machine.sessionOpened(RecordingSession(), tokens: [DeviceToken.random()], now: t0)
        let actions = machine.accepted(AcceptedNotification.fixture(token: token), now: t0)
        #expect(actions.sends.isEmpty)
        #expect(actions.changes.kinds == [.stored])
        #expect(!machine.isOnline(token))
    }

    @Test("tokenRegistered on an open session makes the token online and sends what waits")
    func tokenRegisteredSendsPending() {
        var machine = DeliveryStateMachine(policy: DeliveryPolicy())
        let session = RecordingSession()
        _ = machine.sessionOpened(session, tokens: [], now: t0)
        let notification = AcceptedNotification.fixture(token: token)
        _ = machine.accepted(notification, now: t0)
        let actions = machine.tokenRegistered(token, session: session.id, now: t0 + 1)
        #expect(actions.sentIDs == [notification.id])
        #expect(machine.isOnline(token))
    }

    @Test("Priority 5 and 1 are held for the burst window and flushed together on tick, in order", arguments: [APNSPriority.powerConsiderate, .low])
    func lowPriorityIsHeld(priority: APNSPriority) {
        var machine = DeliveryStateMachine(policy: DeliveryPolicy())
        let session = RecordingSession()
        _ = machine.sessionOpened(session, tokens: [token], now: t0)
        let first = AcceptedNotification.fixture(token: token, priority: priority)
        let second = AcceptedNotification.fixture(token: token, priority: priority)
        #expect(machine.accepted(first, now: t0).isEmpty)
        #expect(machine.accepted(second, now: t0 + 400).isEmpty)
        #expect(machine.pendingCount == 2)
        #expect(machine.tick(now: t0 + 999).isEmpty)
        let burst = machine.tick(now: t0 + 1000)
        #expect(burst.sentIDs == [first.id, second.id])
        #expect(burst.changes.kinds == [.sent, .sent])
        // The trace says why they waited: held for the burst, this long since acceptance.
        #expect(burst.changes.map { detail($0)["reason"] as? String } == ["low-priority-burst", "low-priority-burst"])
        #expect(
            burst.changes.map { detail($0)["heldMs"] as? Int } == [
                Int(t0 + 1000 - first.acceptedAtMilliseconds), Int(t0 + 1000 - second.acceptedAtMilliseconds),
            ]
        )
        #expect(machine.tick(now: t0 + 2000).isEmpty)
        #expect(machine.outstandingCount == 2)
    }

    @Test("Priority 10 is not held while low-priority ones wait")
    func priorityTenSkipsTheBurst() {
        var machine = DeliveryStateMachine(policy: DeliveryPolicy())
        _ = machine.sessionOpened(RecordingSession(), tokens: [token], now: t0)
        _ = machine.accepted(AcceptedNotification.fixture(token: token, priority: .low), now: t0)
        let urgent = AcceptedNotification.fixture(token: token, priority: .immediate)
        #expect(machine.accepted(urgent, now: t0 + 1).sentIDs == [urgent.id])
    }

    @Test("A zero burst window sends low priority at once")
    func zeroWindowSendsAtOnce() {
        var policy = DeliveryPolicy()
        policy.lowPriorityBurstWindow = .zero
        var machine = DeliveryStateMachine(policy: policy)
        _ = machine.sessionOpened(RecordingSession(), tokens: [token], now: t0)
        let notification = AcceptedNotification.fixture(token: token, priority: .low)
        #expect(machine.accepted(notification, now: t0).sentIDs == [notification.id])
    }

    @Test("A configured burst window is honoured")
    func configuredWindow() {
        var policy = DeliveryPolicy()
        policy.lowPriorityBurstWindow = .milliseconds(250)
        var machine = DeliveryStateMachine(policy: policy)
        _ = machine.sessionOpened(RecordingSession(), tokens: [token], now: t0)
        let notification = AcceptedNotification.fixture(token: token, priority: .powerConsiderate)
        _ = machine.accepted(notification, now: t0)
        #expect(machine.tick(now: t0 + 249).isEmpty)
        #expect(machine.tick(now: t0 + 250).sentIDs == [notification.id])
    }

    @Test("Acknowledged: acknowledged trace, state delivered, and the notification leaves memory")
    func acknowledgementDelivers() throws {
        var machine = DeliveryStateMachine(policy: DeliveryPolicy())
        let session = RecordingSession(deviceID: "phone")
        _ = machine.sessionOpened(session, tokens: [token], now: t0)
        let notification = AcceptedNotification.fixture(token: token)
        _ = machine.accepted(notification, now: t0)
        let actions = machine.acknowledged(notification.id, session: session.id, now: t0 + 20)
        let change = try #require(actions.changes.first)
        #expect(actions.changes.count == 1)
        #expect(change.event == .acknowledged)
        #expect(change.newState == .delivered)
        #expect(change.atMilliseconds == t0 + 20)
        #expect(detail(change)["session"] as? String == session.id.description)
        #expect(detail(change)["attempt"] as? Int == 1)
        #expect(machine.entries.isEmpty)
        #expect(machine.queues.isEmpty)
        #expect(machine.outstandingCount == 0)
        // The delivery-latency metric: from acceptance to this acknowledgement.
        #expect(actions.deliveryLatencies == [20])
        // A second acknowledgement of the same notification is unknown now.
        let again = machine.acknowledged(notification.id, session: session.id, now: t0 + 30)
        #expect(again.refusals.map(\.code) == ["unknown-notification"])
        #expect(again.deliveryLatencies.isEmpty)
    }

    @Test("An acknowledgement of a notification not outstanding on that session is refused, nothing else")
    func unknownAcknowledgementIsRefused() {
        var machine = DeliveryStateMachine(policy: DeliveryPolicy())
        let session = RecordingSession()
        let other = RecordingSession(deviceID: "device-2")
        let otherToken = DeviceToken.random()
        _ = machine.sessionOpened(session, tokens: [token], now: t0)
        _ = machine.sessionOpened(other, tokens: [otherToken], now: t0)
        let forOther = AcceptedNotification.fixture(token: otherToken)
        _ = machine.accepted(forOther, now: t0)

        let never = NotificationID.random()
        let refused = machine.acknowledged(never, session: session.id, now: t0)
        #expect(refused.refusals.map(\.code) == ["unknown-notification"])
        #expect(refused.refusals.map(\.id) == [never])
        #expect(refused.changes.isEmpty)
        // Sent on another session: this one may not acknowledge it.
        let wrongSession = machine.acknowledged(forOther.id, session: session.id, now: t0)
        #expect(wrongSession.refusals.map(\.session) == [session.id])
        #expect(wrongSession.changes.isEmpty)
        #expect(machine.outstandingCount == 1)
    }

    @Test("Session closed: unacknowledged ones wait again and go to the next session, oldest first, attempt + 1")
    func redeliveryAfterClose() throws {
        var machine = DeliveryStateMachine(policy: DeliveryPolicy())
        let first = RecordingSession()
        _ = machine.sessionOpened(first, tokens: [token], now: t0)
        let older = AcceptedNotification.fixture(token: token)
        let newer = AcceptedNotification.fixture(token: token)
        _ = machine.accepted(older, now: t0)
        _ = machine.accepted(newer, now: t0 + 1)

        let closed = machine.sessionClosed(first.id, now: t0 + 10)
        #expect(closed.sends.isEmpty)
        #expect(closed.changes.kinds == [.stored, .stored])
        #expect(closed.changes.allSatisfy { $0.newState == nil })
        #expect(detail(try #require(closed.changes.first))["reason"] as? String == "session-closed")
        #expect(!machine.isOnline(token))
        #expect(machine.pendingCount == 2)

        let second = RecordingSession()
        let reopened = machine.sessionOpened(second, tokens: [token], now: t0 + 20)
        #expect(reopened.sentIDs == [older.id, newer.id])
        #expect(reopened.sends.map(\.attempt) == [2, 2])
        #expect(reopened.sends.allSatisfy { $0.session == second.id })
        #expect(detail(try #require(reopened.changes.first))["attempt"] as? Int == 2)
        // The old session's acknowledgement cannot come any more; the new one's counts.
        #expect(machine.acknowledged(older.id, session: second.id, now: t0 + 30).changes.map(\.newState) == [.delivered])
    }

    @Test("Held low-priority notifications wait again when their session closes")
    func heldReturnToStorageOnClose() {
        var machine = DeliveryStateMachine(policy: DeliveryPolicy())
        let session = RecordingSession()
        _ = machine.sessionOpened(session, tokens: [token], now: t0)
        let notification = AcceptedNotification.fixture(token: token, priority: .low)
        _ = machine.accepted(notification, now: t0)
        #expect(machine.sessionClosed(session.id, now: t0 + 10).changes.kinds == [.stored])
        #expect(machine.tick(now: t0 + 5000).isEmpty)
        let next = machine.sessionOpened(RecordingSession(), tokens: [token], now: t0 + 6000)
        #expect(next.sends.map(\.attempt) == [1])
    }
}
