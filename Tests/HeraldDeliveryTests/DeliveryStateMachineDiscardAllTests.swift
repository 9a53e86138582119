import HeraldCore
import HeraldStore
import HeraldTestSupport
import HeraldTestTiers
import Testing

@testable import HeraldDelivery

@Suite("Delivery state machine: discarding everything (a reset)", .tier(.unit))
struct DeliveryStateMachineDiscardAllTests {
    let token = DeviceToken.random()

    @Test("pending, held, outstanding and a reused apns-id's successor are all discarded once; a late ack is traced, not refused")
    func discardsEverything() throws {
        var machine = DeliveryStateMachine(policy: DeliveryPolicy())
        let session = RecordingSession()
        let offline = DeviceToken.random()
        _ = machine.sessionOpened(session, tokens: [token], now: t0)
        let sent = AcceptedNotification.fixture(token: token)
        let held = AcceptedNotification.fixture(token: token, priority: .low)
        let waiting = AcceptedNotification.fixture(token: offline)
        _ = machine.accepted(sent, now: t0)
        _ = machine.accepted(held, now: t0)
        _ = machine.accepted(waiting, now: t0)
        // A newer notification with the outstanding one's apns-id waits behind it (rule 13).
        let successor = AcceptedNotification.fixture(token: token, id: sent.id, acceptedAt: t0 + 1)
        _ = machine.accepted(successor, sequence: 99, now: t0 + 1)
        #expect(machine.unsentCount == 3)
        #expect(machine.outstandingCount == 1)

        let actions = machine.discardAll(reason: "reset", now: t0 + 5)
        let changes = actions.changes
        #expect(changes.count == 4)
        #expect(changes.allSatisfy { $0.event == .discarded && $0.newState == .discarded })
        #expect(changes.allSatisfy { detail($0)["reason"] as? String == "reset" })
        #expect(changes.compactMap(\.sequence).contains(99))
        #expect(Set(changes.map(\.notificationID.key)) == [sent.id.key, held.id.key, waiting.id.key])
        #expect(machine.entries.isEmpty && machine.successors.isEmpty)
        #expect(machine.unsentCount == 0 && machine.outstandingCount == 0)
        // Nothing comes back on a tick, and the late acknowledgement of the one sent is not refused.
        #expect(machine.tick(now: t0 + 2_000).isEmpty)
        let late = machine.acknowledged(sent.id, session: session.id, now: t0 + 6)
        #expect(late.refusals.isEmpty)
        // Later notifications are delivered as usual.
        let next = AcceptedNotification.fixture(token: token)
        #expect(machine.accepted(next, now: t0 + 7).sentIDs == [next.id])
    }
}
