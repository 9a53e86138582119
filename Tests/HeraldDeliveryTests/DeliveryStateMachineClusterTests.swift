import HeraldCore
import HeraldStore
import HeraldTestSupport
import HeraldTestTiers
import Testing

@testable import HeraldDelivery

/// The rules of a cluster node's machine (docs/cluster.md): it holds only what its connected devices take, and takes
/// what waits in the shared store through `adopt`.
@Suite("Delivery state machine: a cluster node", .tier(.unit))
struct DeliveryStateMachineClusterTests {
    let token = DeviceToken.random()

    func stored(_ notification: AcceptedNotification, sequence: Int64) -> StoredNotification {
        StoredNotification(sequence: sequence, notification: notification, state: .stored)
    }

    @Test("A notification for a token no session here holds is neither kept nor traced: the shared store has it")
    func offlineIsLeftToTheStore() {
        var machine = DeliveryStateMachine(policy: DeliveryPolicy(), nodeID: "a")
        let actions = machine.accepted(AcceptedNotification.fixture(token: token), sequence: 1, now: t0)
        #expect(actions.isEmpty)
        #expect(machine.entries.isEmpty)
        // A single node keeps it and traces `stored`.
        var single = DeliveryStateMachine(policy: DeliveryPolicy())
        #expect(single.accepted(AcceptedNotification.fixture(token: token), sequence: 1, now: t0).changes.kinds == [.stored])
    }

    @Test("Online here: sent as on one node, and `sent`/`acknowledged` name the node")
    func onlineIsSentWithTheNode() throws {
        var machine = DeliveryStateMachine(policy: DeliveryPolicy(), nodeID: "node-a")
        let session = RecordingSession()
        _ = machine.sessionOpened(session, tokens: [token], now: t0)
        let notification = AcceptedNotification.fixture(token: token)
        let sent = machine.accepted(notification, sequence: 7, now: t0 + 1)
        #expect(sent.sentIDs == [notification.id])
        #expect(detail(try #require(sent.changes.first))["node"] as? String == "node-a")
        let acknowledged = machine.acknowledged(notification.id, session: session.id, now: t0 + 2)
        #expect(detail(try #require(acknowledged.changes.first))["node"] as? String == "node-a")
        var single = DeliveryStateMachine(policy: DeliveryPolicy())
        _ = single.sessionOpened(RecordingSession(), tokens: [token], now: t0)
        #expect(detail(try #require(single.accepted(AcceptedNotification.fixture(token: token), now: t0).changes.first))["node"] == nil)
    }

    @Test("At connection the offline rules apply to what waited: expired ones expire, collapse ids and the slot keep the newest")
    func offlineRulesAtConnection() throws {
        var machine = DeliveryStateMachine(policy: DeliveryPolicy(), nodeID: "a")
        _ = machine.sessionOpened(RecordingSession(), tokens: [token], now: t0)
        let expired = AcceptedNotification.fixture(token: token, expiration: (t0 - 1000) / 1000)
        let older = AcceptedNotification.fixture(token: token)
        let collapsedOlder = AcceptedNotification.fixture(token: token, collapseID: "score")
        let collapsedNewer = AcceptedNotification.fixture(token: token, collapseID: "score")
        let newest = AcceptedNotification.fixture(token: token)
        let rows = [
            stored(newest, sequence: 5), stored(expired, sequence: 1), stored(older, sequence: 2),
            stored(collapsedOlder, sequence: 3), stored(collapsedNewer, sequence: 4),
        ]
        let actions = machine.adopt(rows, atConnection: true, now: t0 + 10)
        #expect(actions.sentIDs == [newest.id])
        #expect(actions.changes.of(expired.id).map(\.newState) == [.expired])
        #expect(detail(try #require(actions.changes.of(collapsedOlder.id).first))["reason"] as? String == "collapse-id")
        let limited = try #require(actions.changes.of(older.id).first)
        #expect(limited.newState == .replaced)
        #expect(detail(limited)["reason"] as? String == "offline-storage-limit")
        #expect(detail(limited)["by"] as? String == newest.id.text)
        #expect(actions.changes.of(collapsedNewer.id).map(\.newState) == [.replaced])
        #expect(actions.changes.of(newest.id).map(\.event) == [.sent])
        #expect(actions.changes.of(newest.id).first?.sequence == 5)
    }

    @Test("With more offline slots, what waited is sent oldest first")
    func severalSlotsAtConnection() {
        var policy = DeliveryPolicy()
        policy.offlineSlotsPerApp = 3
        var machine = DeliveryStateMachine(policy: policy, nodeID: "a")
        _ = machine.sessionOpened(RecordingSession(), tokens: [token], now: t0)
        let notifications = (0..<4).map { _ in AcceptedNotification.fixture(token: token) }
        let rows = notifications.enumerated().map { stored($1, sequence: Int64($0 + 1)) }
        let actions = machine.adopt(rows.reversed(), atConnection: true, now: t0 + 1)
        #expect(actions.sentIDs == notifications.dropFirst().map(\.id))
        #expect(actions.changes.of(notifications[0].id).map(\.newState) == [.replaced])
    }

    @Test("Arrivals for an online token are not trimmed: each is sent")
    func arrivalsAreNotTrimmed() {
        var machine = DeliveryStateMachine(policy: DeliveryPolicy(), nodeID: "a")
        _ = machine.sessionOpened(RecordingSession(), tokens: [token], now: t0)
        let notifications = (0..<3).map { _ in AcceptedNotification.fixture(token: token) }
        let actions = machine.adopt(notifications.enumerated().map { stored($1, sequence: Int64($0 + 1)) }, atConnection: false, now: t0 + 1)
        #expect(actions.sentIDs == notifications.map(\.id))
    }

    @Test("A row the machine holds already (same sequence) or of a token no session here holds is left alone")
    func adoptIgnoresHeldAndForeignRows() {
        var machine = DeliveryStateMachine(policy: DeliveryPolicy(), nodeID: "a")
        _ = machine.sessionOpened(RecordingSession(), tokens: [token], now: t0)
        let notification = AcceptedNotification.fixture(token: token)
        #expect(machine.accepted(notification, sequence: 3, now: t0).sentIDs == [notification.id])
        #expect(machine.adopt([stored(notification, sequence: 3)], atConnection: false, now: t0 + 1).isEmpty)
        let foreign = AcceptedNotification.fixture(token: DeviceToken.random())
        #expect(machine.adopt([stored(foreign, sequence: 4)], atConnection: true, now: t0 + 1).isEmpty)
        #expect(machine.entries[foreign.id.key] == nil)
        // A newer row with the same apns-id (a provider reused it) is taken: it waits behind the outstanding older one.
        let reused = AcceptedNotification.fixture(token: token, id: notification.id)
        let actions = machine.adopt([stored(reused, sequence: 9)], atConnection: false, now: t0 + 2)
        #expect(actions.changes.kinds == [.stored])
        #expect(machine.successors[notification.id.key]?.sequence == 9)
    }

    @Test("The gateway's word for a commit that a sweep or hand-off brought here first is not a reused apns-id: nothing twice")
    func acceptedAfterAdopted() {
        var machine = DeliveryStateMachine(policy: DeliveryPolicy(), nodeID: "a")
        let session = RecordingSession()
        _ = machine.sessionOpened(session, tokens: [token], now: t0)
        let notification = AcceptedNotification.fixture(token: token)
        #expect(machine.adopt([stored(notification, sequence: 5)], atConnection: false, now: t0).sentIDs == [notification.id])
        // Before the fix it became its own successor ("apns-id-outstanding") and was sent again after the ack.
        #expect(machine.accepted(notification, sequence: 5, now: t0 + 1).isEmpty)
        #expect(machine.successors[notification.id.key] == nil)
        let acknowledged = machine.acknowledged(notification.id, session: session.id, now: t0 + 2)
        #expect(acknowledged.sentIDs.isEmpty)
        #expect(acknowledged.changes.kinds == [.acknowledged])
        // A provider that reuses the apns-id later (a newer sequence) is served as on one node.
        let reused = AcceptedNotification.fixture(token: token, id: notification.id)
        #expect(machine.accepted(reused, sequence: 8, now: t0 + 3).sentIDs == [notification.id])
    }

    @Test("A closed session's tokens are forgotten: what it had not acknowledged is traced stored and left to the store")
    func closeForgetsTheTokens() {
        var machine = DeliveryStateMachine(policy: DeliveryPolicy(), nodeID: "a")
        let session = RecordingSession()
        _ = machine.sessionOpened(session, tokens: [token], now: t0)
        let notification = AcceptedNotification.fixture(token: token)
        _ = machine.accepted(notification, sequence: 1, now: t0)
        let actions = machine.sessionClosed(session.id, now: t0 + 1)
        #expect(actions.changes.kinds == [.stored])
        #expect(machine.entries.isEmpty)
        #expect(machine.pendingCount == 0 && machine.outstandingCount == 0)
        // Reconnecting here, the row read from the store is sent again (attempt 1 of this node's memory).
        let again = RecordingSession()
        _ = machine.sessionOpened(again, tokens: [token], now: t0 + 2)
        #expect(machine.adopt([stored(notification, sequence: 1)], atConnection: true, now: t0 + 3).sentIDs == [notification.id])
    }

    @Test("A second session of the device on this node keeps the token: nothing is forgotten")
    func anotherSessionKeepsTheToken() {
        var machine = DeliveryStateMachine(policy: DeliveryPolicy(), nodeID: "a")
        let first = RecordingSession()
        let second = RecordingSession()
        _ = machine.sessionOpened(first, tokens: [token], now: t0)
        _ = machine.sessionOpened(second, tokens: [token], now: t0 + 1)
        let notification = AcceptedNotification.fixture(token: token)
        #expect(machine.accepted(notification, sequence: 1, now: t0 + 2).sends.map(\.session) == [second.id])
        _ = machine.sessionClosed(first.id, now: t0 + 3)
        #expect(machine.entries[notification.id.key] != nil)
        #expect(machine.owner(of: token) == second.id)
    }
}

@Suite("Recently finished sequences of a cluster node", .tier(.unit))
struct RecentlyFinishedTests {
    @Test("Kept until written and old enough, then forgotten in order")
    func forgetsWrittenAndOld() {
        var finished = RecentlyFinished()
        finished.insert(1, journalMark: 10, finishedAt: 100)
        finished.insert(2, journalMark: 20, finishedAt: 200)
        #expect(finished.contains(1) && finished.contains(2))
        finished.forget(writtenThrough: 9, before: 1000)
        #expect(finished.contains(1), "not written yet")
        finished.forget(writtenThrough: 25, before: 150)
        #expect(!finished.contains(1) && finished.contains(2), "2 finished too recently")
        finished.forget(writtenThrough: 25, before: 1000)
        #expect(finished.count == 0)
    }

    @Test("A sequence finished twice stays until both are forgotten")
    func finishedTwice() {
        var finished = RecentlyFinished()
        finished.insert(5, journalMark: 1, finishedAt: 1)
        finished.insert(5, journalMark: 2, finishedAt: 2)
        finished.forget(writtenThrough: 1, before: 100)
        #expect(finished.contains(5))
        finished.forget(writtenThrough: 2, before: 100)
        #expect(!finished.contains(5))
    }
}

@Suite("Hand-offs gathered for one read", .tier(.unit))
struct HandOffBufferTests {
    @Test("What arrives while nobody reads is taken at once, in order; a waiting reader is woken; finish ends it")
    func gathers() async {
        let buffer = HandOffBuffer()
        buffer.append([1, 2])
        buffer.append([3])
        #expect(await buffer.takeAll() == [1, 2, 3])
        let reader = Task { await buffer.takeAll() }
        await buffer.readerWaits()
        buffer.append([4])
        #expect(await reader.value == [4])
        buffer.append([5])
        buffer.finish()
        #expect(await buffer.takeAll() == [5])
        #expect(await buffer.takeAll() == nil)
    }
}
