import HeraldCore
import HeraldStore
import HeraldTestSupport
import HeraldTestTiers
import Testing

@testable import HeraldDelivery

@Suite("Delivery state machine: a provider reuses an apns-id (store sequences)", .tier(.unit))
struct DeliveryStateMachineReuseTests {
    let token = DeviceToken.random()

    /// A machine where notification 1 is outstanding on a session and notification 2, with the same `apns-id`, waits.
    func newerWaitingForOlder() -> (DeliveryStateMachine, RecordingSession, NotificationID) {
        var machine = DeliveryStateMachine(policy: DeliveryPolicy())
        let session = RecordingSession()
        _ = machine.sessionOpened(session, tokens: [token], now: t0)
        let id = NotificationID.random()
        _ = machine.accepted(AcceptedNotification.fixture(token: token, id: id, acceptedAt: t0), sequence: 1, now: t0)
        _ = machine.accepted(AcceptedNotification.fixture(token: token, id: id, acceptedAt: t0 + 1), sequence: 2, now: t0 + 1)
        return (machine, session, id)
    }

    @Test("Every change names the notification by its store sequence")
    func changesCarryTheSequence() {
        var machine = DeliveryStateMachine(policy: DeliveryPolicy())
        let session = RecordingSession()
        let offline = AcceptedNotification.fixture(token: token)
        #expect(machine.accepted(offline, sequence: 7, now: t0).changes.map(\.sequence) == [7])
        let opened = machine.sessionOpened(session, tokens: [token], now: t0 + 1)
        #expect(opened.changes.map(\.sequence) == [7])
        let acknowledged = machine.acknowledged(offline.id, session: session.id, now: t0 + 2)
        #expect(acknowledged.changes.map(\.event) == [.acknowledged])
        #expect(acknowledged.changes.map(\.sequence) == [7])
    }

    @Test("Restored notifications keep their store sequences")
    func restoredSequences() {
        var machine = DeliveryStateMachine(policy: DeliveryPolicy())
        let session = RecordingSession()
        let notification = AcceptedNotification.fixture(token: token, acceptedAt: t0)
        _ = machine.restore([StoredNotification(sequence: 42, notification: notification, state: .stored)], now: t0)
        let opened = machine.sessionOpened(session, tokens: [token], now: t0 + 1)
        #expect(opened.changes.map(\.event) == [.sent])
        #expect(opened.changes.map(\.sequence) == [42])
    }

    @Test("Reused while the older is outstanding: the newer waits for the older's ack, then is sent and acknowledged on its own")
    func reusedWhileOutstanding() {
        var machine = DeliveryStateMachine(policy: DeliveryPolicy())
        let session = RecordingSession()
        _ = machine.sessionOpened(session, tokens: [token], now: t0)
        let id = NotificationID.random()
        let older = AcceptedNotification.fixture(token: token, id: id, acceptedAt: t0)
        let newer = AcceptedNotification.fixture(token: token, id: id, acceptedAt: t0 + 1)
        #expect(machine.accepted(older, sequence: 1, now: t0).sends.map(\.attempt) == [1])

        let waiting = machine.accepted(newer, sequence: 2, now: t0 + 1)
        #expect(waiting.sends.isEmpty)
        #expect(waiting.changes.map(\.event) == [.stored])
        #expect(waiting.changes.map(\.sequence) == [2])
        #expect(detail(waiting.changes[0])["reason"] as? String == "apns-id-outstanding")
        // The newer one is not sent yet: it counts as such (herald_notifications_pending), the older as outstanding.
        #expect(machine.unsentCount == 1 && machine.pendingCount == 0)
        #expect(machine.outstandingCount == 1)

        // The first ack is the older one's: it alone is delivered, and the newer goes out.
        let first = machine.acknowledged(id, session: session.id, now: t0 + 2)
        #expect(first.changes.map(\.event) == [.acknowledged, .sent])
        #expect(first.changes.map(\.sequence) == [1, 2])
        #expect(first.changes.map(\.newState) == [.delivered, nil])
        #expect(first.deliveryLatencies == [2])
        #expect(first.sends.map(\.attempt) == [1])
        #expect(session.deliveries.isEmpty)  // the machine only returns actions

        // The second ack is the newer one's.
        let second = machine.acknowledged(id, session: session.id, now: t0 + 3)
        #expect(second.changes.map(\.event) == [.acknowledged])
        #expect(second.changes.map(\.sequence) == [2])
        #expect(second.changes.map(\.newState) == [.delivered])
        #expect(machine.entries.isEmpty)
        #expect(machine.successors.isEmpty)
        #expect(machine.outstandingCount == 0)
        #expect(machine.pendingCount == 0 && machine.unsentCount == 0)

        // A third ack has nothing left to acknowledge.
        #expect(machine.acknowledged(id, session: session.id, now: t0 + 4).refusals.map(\.code) == ["unknown-notification"])
    }

    @Test("Reused twice while outstanding: only the newest waits (the store replaced the middle one)")
    func reusedTwiceWhileOutstanding() {
        let (start, session, id) = newerWaitingForOlder()
        var machine = start
        _ = machine.accepted(AcceptedNotification.fixture(token: token, id: id, acceptedAt: t0 + 2), sequence: 3, now: t0 + 2)
        let first = machine.acknowledged(id, session: session.id, now: t0 + 3)
        #expect(first.changes.map(\.sequence) == [1, 3])
        #expect(machine.acknowledged(id, session: session.id, now: t0 + 4).changes.map(\.sequence) == [3])
        #expect(machine.entries.isEmpty)
    }

    @Test("The older's session closes before its ack: the newer takes its place and is sent on the next session")
    func olderSessionClosed() {
        let (start, first, id) = newerWaitingForOlder()
        var machine = start

        #expect(machine.sessionClosed(first.id, now: t0 + 2).changes.isEmpty)
        #expect(machine.pendingCount == 1)
        let second = RecordingSession()
        let opened = machine.sessionOpened(second, tokens: [token], now: t0 + 3)
        #expect(opened.changes.map(\.event) == [.sent])
        #expect(opened.changes.map(\.sequence) == [2])
        #expect(opened.sends.map(\.attempt) == [1])
        let acknowledged = machine.acknowledged(id, session: second.id, now: t0 + 4)
        #expect(acknowledged.changes.map(\.sequence) == [2])
        #expect(acknowledged.changes.map(\.newState) == [.delivered])
        #expect(machine.entries.isEmpty)
    }

    @Test("A newer session takes the token before the older's ack: the newer is sent there; the older's late ack is traced")
    func olderSessionReplaced() {
        let (start, old, id) = newerWaitingForOlder()
        var machine = start

        let new = RecordingSession()
        let opened = machine.sessionOpened(new, tokens: [token], now: t0 + 2)
        #expect(opened.sends.map(\.session) == [new.id])
        #expect(opened.changes.map(\.sequence) == [2])

        let late = machine.acknowledged(id, session: old.id, now: t0 + 3)
        #expect(late.refusals.isEmpty)
        #expect(late.changes.map(\.sequence) == [1])
        #expect(late.changes.map(\.newState) == [nil])
        #expect(detail(late.changes[0])["late"] as? Bool == true)

        let acknowledged = machine.acknowledged(id, session: new.id, now: t0 + 4)
        #expect(acknowledged.changes.map(\.sequence) == [2])
        #expect(acknowledged.changes.map(\.newState) == [.delivered])
    }

    @Test("The token is unregistered while a newer one waits: both are discarded")
    func unregisteredWhileWaiting() {
        let (start, _, _) = newerWaitingForOlder()
        var machine = start
        let actions = machine.tokenUnregistered(token, now: t0 + 2)
        #expect(actions.changes.map(\.event) == [.discarded, .discarded])
        #expect(actions.changes.map(\.sequence) == [1, 2])
        #expect(machine.entries.isEmpty)
        #expect(machine.successors.isEmpty)
    }
}
