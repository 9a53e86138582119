import HeraldCore
import HeraldStore
import HeraldTestSupport
import HeraldTestTiers
import Testing

@testable import HeraldDelivery

@Suite("Delivery state machine: offline slots, expiration, collapse, reuse, unregistration", .tier(.unit))
struct DeliveryStateMachineStorageTests {
    let token = DeviceToken.random()

    @Test("Offline, one slot per app by default: the older one is replaced by the newer")
    func oneOfflineSlot() throws {
        var machine = DeliveryStateMachine(policy: DeliveryPolicy())
        let older = AcceptedNotification.fixture(token: token)
        let newer = AcceptedNotification.fixture(token: token)
        _ = machine.accepted(older, now: t0)
        let actions = machine.accepted(newer, now: t0 + 1)
        #expect(actions.changes.kinds == [.stored, .replaced])
        let replaced = try #require(actions.changes.of(older.id).first)
        #expect(replaced.newState == .replaced)
        #expect(detail(replaced)["reason"] as? String == "offline-storage-limit")
        #expect(detail(replaced)["by"] as? String == newer.id.text)
        #expect(machine.sessionOpened(RecordingSession(), tokens: [token], now: t0 + 2).sentIDs == [newer.id])
    }

    @Test("Offline slots are per token (app): another app's notification is not replaced")
    func slotsArePerToken() {
        var machine = DeliveryStateMachine(policy: DeliveryPolicy())
        _ = machine.accepted(AcceptedNotification.fixture(token: token), now: t0)
        let actions = machine.accepted(AcceptedNotification.fixture(token: DeviceToken.random()), now: t0)
        #expect(actions.changes.kinds == [.stored])
        #expect(machine.pendingCount == 2)
    }

    @Test("offlineSlotsPerApp = 3 keeps the three newest")
    func threeOfflineSlots() {
        var policy = DeliveryPolicy()
        policy.offlineSlotsPerApp = 3
        var machine = DeliveryStateMachine(policy: policy)
        let notifications = (0..<4).map { _ in AcceptedNotification.fixture(token: token) }
        var changes: [DeliveryChange] = []
        for (index, notification) in notifications.enumerated() {
            changes += machine.accepted(notification, now: t0 + Int64(index)).changes
        }
        #expect(changes.filter { $0.event == .replaced }.map(\.notificationID) == [notifications[0].id])
        let sent = machine.sessionOpened(RecordingSession(), tokens: [token], now: t0 + 10).sentIDs
        #expect(sent == Array(notifications.dropFirst().map(\.id)))
    }

    @Test("The slot limit applies only when storing for an offline token, not to what is sent online")
    func slotsDoNotLimitOnline() {
        var machine = DeliveryStateMachine(policy: DeliveryPolicy())
        _ = machine.sessionOpened(RecordingSession(), tokens: [token], now: t0)
        var changes: [DeliveryChange] = []
        for index in 0..<3 {
            changes += machine.accepted(AcceptedNotification.fixture(token: token), now: t0 + Int64(index)).changes
        }
        #expect(changes.kinds == [.sent, .sent, .sent])
        #expect(machine.outstandingCount == 3)
    }

    @Test("No apns-expiration: kept for the default storage time after acceptance, then expired on tick")
    func defaultStorageExpires() throws {
        var machine = DeliveryStateMachine(policy: DeliveryPolicy())
        let notification = AcceptedNotification.fixture(token: token, acceptedAt: t0)
        _ = machine.accepted(notification, now: t0)
        let thirtyDays: Int64 = 30 * 24 * 3_600_000
        #expect(machine.tick(now: t0 + thirtyDays - 1).isEmpty)
        let expired = try #require(machine.tick(now: t0 + thirtyDays).changes.first)
        #expect(expired.event == .expired)
        #expect(expired.newState == .expired)
        #expect(detail(expired)["reason"] as? String == "expired")
        #expect(machine.entries.isEmpty)
    }

    @Test("policy.defaultStorage changes how long a notification without expiration is kept")
    func configuredDefaultStorage() {
        var policy = DeliveryPolicy()
        policy.defaultStorage = .seconds(60)
        var machine = DeliveryStateMachine(policy: policy)
        _ = machine.accepted(AcceptedNotification.fixture(token: token, acceptedAt: t0), now: t0)
        #expect(machine.tick(now: t0 + 59_999).isEmpty)
        #expect(machine.tick(now: t0 + 60_000).changes.kinds == [.expired])
    }

    @Test("apns-expiration passing while stored: expired on the tick after it, never sent")
    func expirationWhileStored() {
        var machine = DeliveryStateMachine(policy: DeliveryPolicy())
        let expiration = t0 / 1000 + 10
        let notification = AcceptedNotification.fixture(token: token, expiration: expiration)
        #expect(machine.accepted(notification, now: t0).changes.kinds == [.stored])
        #expect(machine.tick(now: expiration * 1000 - 1).isEmpty)
        #expect(machine.tick(now: expiration * 1000).changes.map(\.newState) == [.expired])
        #expect(machine.sessionOpened(RecordingSession(), tokens: [token], now: expiration * 1000 + 1).isEmpty)
    }

    @Test("Expired while waiting for a session: expired when the session opens, not sent")
    func expiredAtConnectIsNotSent() {
        var machine = DeliveryStateMachine(policy: DeliveryPolicy())
        let expiration = t0 / 1000 + 10
        _ = machine.accepted(AcceptedNotification.fixture(token: token, expiration: expiration), now: t0)
        let opened = machine.sessionOpened(RecordingSession(), tokens: [token], now: expiration * 1000 + 5)
        #expect(opened.sends.isEmpty)
        #expect(opened.changes.kinds == [.expired])
    }

    @Test("apns-expiration already past at acceptance: expired (expiration-past), not sent even when online")
    func expirationInThePast() throws {
        var machine = DeliveryStateMachine(policy: DeliveryPolicy())
        _ = machine.sessionOpened(RecordingSession(), tokens: [token], now: t0)
        for expiration in [t0 / 1000 - 60, t0 / 1000] {
            let notification = AcceptedNotification.fixture(token: token, expiration: expiration)
            let actions = machine.accepted(notification, now: t0)
            #expect(actions.sends.isEmpty)
            let change = try #require(actions.changes.first)
            #expect(actions.changes.count == 1)
            #expect(change.newState == .expired)
            #expect(detail(change)["reason"] as? String == "expiration-past")
        }
        #expect(machine.entries.isEmpty)
    }

    @Test("apns-expiration 0 and offline: expired at once (expiration-zero-offline)")
    func expirationZeroOffline() throws {
        var machine = DeliveryStateMachine(policy: DeliveryPolicy())
        let actions = machine.accepted(AcceptedNotification.fixture(token: token, expiration: 0), now: t0)
        let change = try #require(actions.changes.first)
        #expect(change.newState == .expired)
        #expect(detail(change)["reason"] as? String == "expiration-zero-offline")
        #expect(machine.entries.isEmpty)
    }

    @Test("apns-expiration 0 and online: sent at once whatever its priority; acknowledged → delivered")
    func expirationZeroOnline() {
        var machine = DeliveryStateMachine(policy: DeliveryPolicy())
        let session = RecordingSession()
        _ = machine.sessionOpened(session, tokens: [token], now: t0)
        let notification = AcceptedNotification.fixture(token: token, priority: .low, expiration: 0)
        #expect(machine.accepted(notification, now: t0).sentIDs == [notification.id])
        #expect(machine.acknowledged(notification.id, session: session.id, now: t0 + 1).changes.map(\.newState) == [.delivered])
    }

    @Test("apns-expiration 0, sent, session closed before the ack: expired (single attempt), never sent again")
    func expirationZeroSingleAttempt() throws {
        var machine = DeliveryStateMachine(policy: DeliveryPolicy())
        let session = RecordingSession()
        _ = machine.sessionOpened(session, tokens: [token], now: t0)
        let notification = AcceptedNotification.fixture(token: token, expiration: 0)
        _ = machine.accepted(notification, now: t0)
        let closed = machine.sessionClosed(session.id, now: t0 + 5)
        let change = try #require(closed.changes.first)
        #expect(change.newState == .expired)
        #expect(detail(change)["reason"] as? String == "expiration-zero-unacknowledged")
        #expect(machine.sessionOpened(RecordingSession(), tokens: [token], now: t0 + 6).isEmpty)
    }

    @Test("Collapse id: a pending one with the same (token, collapse id) is replaced and not sent")
    func collapseReplacesPending() throws {
        var policy = DeliveryPolicy()
        policy.offlineSlotsPerApp = 5
        var machine = DeliveryStateMachine(policy: policy)
        let older = AcceptedNotification.fixture(token: token, collapseID: "score")
        let unrelated = AcceptedNotification.fixture(token: token, collapseID: "other")
        let newer = AcceptedNotification.fixture(token: token, collapseID: "score")
        _ = machine.accepted(older, now: t0)
        _ = machine.accepted(unrelated, now: t0)
        let actions = machine.accepted(newer, now: t0 + 1)
        let replaced = try #require(actions.changes.of(older.id).first)
        #expect(replaced.newState == .replaced)
        #expect(detail(replaced)["reason"] as? String == "collapse-id")
        #expect(detail(replaced)["by"] as? String == newer.id.text)
        #expect(machine.sessionOpened(RecordingSession(), tokens: [token], now: t0 + 2).sentIDs == [unrelated.id, newer.id])
    }

    @Test("Collapse id applies per token: the same collapse id for another token is kept")
    func collapseIsPerToken() {
        var machine = DeliveryStateMachine(policy: DeliveryPolicy())
        _ = machine.accepted(AcceptedNotification.fixture(token: DeviceToken.random(), collapseID: "score"), now: t0)
        #expect(machine.accepted(AcceptedNotification.fixture(token: token, collapseID: "score"), now: t0).changes.kinds == [.stored])
    }

    @Test("Collapse id: an outstanding one is replaced, not resent after a close; its late ack is traced, not refused")
    func collapseReplacesOutstanding() throws {
        var machine = DeliveryStateMachine(policy: DeliveryPolicy())
        let session = RecordingSession()
        _ = machine.sessionOpened(session, tokens: [token], now: t0)
        let older = AcceptedNotification.fixture(token: token, collapseID: "score")
        let newer = AcceptedNotification.fixture(token: token, collapseID: "score")
        _ = machine.accepted(older, now: t0)
        let actions = machine.accepted(newer, now: t0 + 1)
        #expect(actions.changes.kinds == [.replaced, .sent])
        #expect(actions.sentIDs == [newer.id])

        let lateAck = machine.acknowledged(older.id, session: session.id, now: t0 + 2)
        #expect(lateAck.refusals.isEmpty)
        let traced = try #require(lateAck.changes.first)
        #expect(traced.event == .acknowledged)
        #expect(traced.newState == nil)
        #expect(detail(traced)["late"] as? Bool == true)
        // A late acknowledgement is no delivery: nothing for the delivery-latency metric.
        #expect(lateAck.deliveryLatencies.isEmpty)

        _ = machine.sessionClosed(session.id, now: t0 + 3)
        #expect(machine.sessionOpened(RecordingSession(), tokens: [token], now: t0 + 4).sentIDs == [newer.id])
    }

    @Test("A reused apns-id whose older notification is held: the old entry is dropped silently and the new one is treated as new")
    func reusedNotificationID() {
        var machine = DeliveryStateMachine(policy: DeliveryPolicy())
        let session = RecordingSession()
        _ = machine.sessionOpened(session, tokens: [token], now: t0)
        let id = NotificationID.random()
        _ = machine.accepted(AcceptedNotification.fixture(token: token, id: id, priority: .low), now: t0)
        let again = machine.accepted(AcceptedNotification.fixture(token: token, id: id), now: t0 + 1)
        #expect(again.changes.kinds == [.sent])
        #expect(again.sends.map(\.attempt) == [1])
        #expect(machine.entries.count == 1)
        #expect(machine.pendingCount == 0)
        #expect(machine.tick(now: t0 + 5000).isEmpty)
    }

    @Test("Token unregistered: pending and outstanding ones are discarded; the token is no longer online")
    func unregisteredTokenDiscards() throws {
        var machine = DeliveryStateMachine(policy: DeliveryPolicy())
        let session = RecordingSession()
        _ = machine.sessionOpened(session, tokens: [token], now: t0)
        let outstanding = AcceptedNotification.fixture(token: token)
        let held = AcceptedNotification.fixture(token: token, priority: .low)
        _ = machine.accepted(outstanding, now: t0)
        _ = machine.accepted(held, now: t0)
        let actions = machine.tokenUnregistered(token, now: t0 + 1)
        #expect(Set(actions.changes.map(\.notificationID)) == [outstanding.id, held.id])
        #expect(actions.changes.allSatisfy { $0.event == .discarded && $0.newState == .discarded })
        #expect(detail(try #require(actions.changes.first))["reason"] as? String == "token-unregistered")
        #expect(!machine.isOnline(token))
        #expect(machine.entries.isEmpty)
        #expect(machine.tick(now: t0 + 5000).isEmpty)
        // The device acknowledged just before it unregistered the app: traced, not refused.
        #expect(machine.acknowledged(outstanding.id, session: session.id, now: t0 + 2).refusals.isEmpty)
    }

    @Test("A notification accepted for a token already unregistered is discarded on arrival, nothing is sent")
    func acceptedAfterUnregistration() throws {
        var machine = DeliveryStateMachine(policy: DeliveryPolicy())
        let session = RecordingSession()
        _ = machine.sessionOpened(session, tokens: [token], now: t0)
        _ = machine.tokenUnregistered(token, now: t0)
        let late = AcceptedNotification.fixture(token: token)
        let actions = machine.accepted(late, sequence: 7, now: t0 + 1)
        let change = try #require(actions.changes.first)
        #expect(actions.changes.count == 1)
        #expect(change.event == .discarded && change.newState == .discarded && change.sequence == 7)
        #expect(detail(change)["reason"] as? String == "token-unregistered")
        #expect(actions.sends.isEmpty)
        #expect(machine.entries.isEmpty)
        // Another token is untouched.
        let other = AcceptedNotification.fixture(token: DeviceToken.random())
        #expect(machine.accepted(other, now: t0 + 2).changes.kinds == [.stored])
    }

    @Test("A device report becomes a trace event of its kind with its detail; the state is unchanged")
    func deviceReport() throws {
        var machine = DeliveryStateMachine(policy: DeliveryPolicy())
        let session = RecordingSession()
        _ = machine.sessionOpened(session, tokens: [token], now: t0)
        let id = NotificationID.random()
        for kind in TraceEventKind.deviceReports {
            let report = DeviceReport(notificationID: id, event: kind, detailJSON: #"{"title":"Hi"}"#)
            let change = try #require(machine.reported(report, session: session.id, now: t0).changes.first)
            #expect(change.event == kind)
            #expect(change.newState == nil)
            #expect(change.detailJSON == #"{"title":"Hi"}"#)
        }
        let unknown = DeviceReport(notificationID: id, event: .delivered, detailJSON: nil)
        let refused = machine.reported(unknown, session: session.id, now: t0)
        #expect(refused.refusals.map(\.code) == ["unknown-event"])
        #expect(refused.changes.isEmpty)
    }

    @Test("Restore: stored notifications wait, oldest first; expired ones are expired; others' states are ignored")
    func restore() {
        var machine = DeliveryStateMachine(policy: DeliveryPolicy())
        let first = AcceptedNotification.fixture(token: token)
        let second = AcceptedNotification.fixture(token: token)
        let past = AcceptedNotification.fixture(token: token, expiration: t0 / 1000)
        let zero = AcceptedNotification.fixture(token: token, expiration: 0)
        let delivered = AcceptedNotification.fixture(token: token)
        let stored = [
            StoredNotification(sequence: 2, notification: second, state: .stored),
            StoredNotification(sequence: 1, notification: first, state: .stored),
            StoredNotification(sequence: 3, notification: past, state: .stored),
            StoredNotification(sequence: 4, notification: zero, state: .stored),
            StoredNotification(sequence: 5, notification: delivered, state: .delivered),
        ]
        let actions = machine.restore(stored, now: t0 + 10)
        #expect(actions.sends.isEmpty)
        #expect(actions.changes.map(\.notificationID) == [past.id, zero.id])
        #expect(actions.changes.map { detail($0)["reason"] as? String } == ["expired", "expiration-zero-offline"])
        #expect(machine.pendingCount == 2)
        let opened = machine.sessionOpened(RecordingSession(), tokens: [token], now: t0 + 20)
        #expect(opened.sentIDs == [first.id, second.id])
        #expect(opened.sends.map(\.attempt) == [1, 1])
    }
}
