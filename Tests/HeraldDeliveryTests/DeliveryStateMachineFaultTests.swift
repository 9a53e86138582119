import HeraldCore
import HeraldStore
import HeraldTestSupport
import HeraldTestTiers
import Testing

@testable import HeraldDelivery

@Suite("Delivery state machine: fault rules' device-side effects", .tier(.unit))
struct DeliveryStateMachineFaultTests {
    let token = DeviceToken.random()

    @Test("deviceOffline closes the device's sessions and stores the notification; it goes out on the next session")
    func deviceOffline() throws {
        var machine = DeliveryStateMachine(policy: DeliveryPolicy())
        let first = RecordingSession()
        let second = RecordingSession()
        _ = machine.sessionOpened(first, tokens: [token], now: t0)
        _ = machine.sessionOpened(second, tokens: [DeviceToken.random()], now: t0)
        let earlier = AcceptedNotification.fixture(token: token)
        #expect(machine.accepted(earlier, now: t0).sentIDs == [earlier.id])
        let notification = AcceptedNotification.fixture(token: token)
        let fault = DeviceFault(ruleID: "gone", offlineMilliseconds: 1000)
        let actions = machine.accepted(notification, deviceFault: fault, now: t0 + 1)
        let disconnected = actions.compactMap { action -> (DeviceSessionID, OfflineWindow)? in
            guard case .disconnect(let session, let window) = action else { return nil }
            return (session.id, window)
        }
        // Both sessions of the device, whatever tokens each holds.
        #expect(Set(disconnected.map(\.0)) == [first.id, second.id])
        #expect(disconnected.first?.1 == OfflineWindow(ruleID: "gone", untilMilliseconds: t0 + 1001))
        #expect(actions.sentIDs.isEmpty)
        // The unacknowledged one waits again, then gives its offline slot to the new one, stored naming the rule.
        let returned = try #require(actions.changes.of(earlier.id).first)
        #expect(returned.event == .stored)
        #expect(detail(returned)["reason"] as? String == "fault-device-offline")
        #expect(actions.changes.of(earlier.id).kinds == [.stored, .replaced])
        let stored = try #require(actions.changes.of(notification.id).first)
        #expect(stored.event == .stored)
        #expect(detail(stored)["fault"] as? String == "gone")
        #expect(machine.sessionCount(deviceID: first.deviceID) == 0)
        // A late ack on the closed session is ignored; the close the link reports later changes nothing.
        #expect(machine.acknowledged(earlier.id, session: first.id, now: t0 + 2).isEmpty)
        #expect(machine.sessionClosed(first.id, now: t0 + 3).isEmpty)
        let back = machine.sessionOpened(RecordingSession(), tokens: [token], now: t0 + 1001)
        #expect(back.sentIDs == [notification.id])
    }

    @Test("ackDelayMs: the ack counts only when its time comes; the notification stays sent until then")
    func acknowledgementDelay() throws {
        var machine = DeliveryStateMachine(policy: DeliveryPolicy())
        let session = RecordingSession()
        _ = machine.sessionOpened(session, tokens: [token], now: t0)
        let notification = AcceptedNotification.fixture(token: token, acceptedAt: t0)
        let fault = DeviceFault(ruleID: "slow", acknowledgementDelayMilliseconds: 500)
        #expect(machine.accepted(notification, deviceFault: fault, now: t0).sentIDs == [notification.id])
        #expect(machine.acknowledged(notification.id, session: session.id, now: t0 + 10).isEmpty)
        // A repeated ack does not move the time.
        #expect(machine.acknowledged(notification.id, session: session.id, now: t0 + 400).isEmpty)
        #expect(machine.tick(now: t0 + 509).changes.isEmpty)
        #expect(machine.outstandingCount == 1)
        let counted = machine.tick(now: t0 + 510)
        let change = try #require(counted.changes.first)
        #expect(change.event == .acknowledged)
        #expect(change.newState == .delivered)
        #expect(detail(change)["fault"] as? String == "slow")
        #expect(detail(change)["receivedAt"] as? Int == Int(t0 + 10))
        #expect(detail(change)["heldMs"] as? Int == 500)
        #expect(counted.deliveryLatencies == [510])
        #expect(machine.outstandingCount == 0)
    }

    @Test("ackDelayMs: a session that closes before the ack counts leaves the notification unacknowledged")
    func acknowledgementDelayThenClose() throws {
        var machine = DeliveryStateMachine(policy: DeliveryPolicy())
        let session = RecordingSession()
        _ = machine.sessionOpened(session, tokens: [token], now: t0)
        let notification = AcceptedNotification.fixture(token: token)
        _ = machine.accepted(notification, deviceFault: DeviceFault(acknowledgementDelayMilliseconds: 500), now: t0)
        _ = machine.acknowledged(notification.id, session: session.id, now: t0 + 1)
        let closed = machine.sessionClosed(session.id, now: t0 + 2)
        #expect(closed.changes.kinds == [.stored])
        #expect(machine.tick(now: t0 + 1000).changes.isEmpty)
        // Sent again on the next session (attempt 2), and its ack is held again.
        let next = RecordingSession()
        #expect(machine.sessionOpened(next, tokens: [token], now: t0 + 1001).sends.map(\.attempt) == [2])
        #expect(machine.acknowledged(notification.id, session: next.id, now: t0 + 1002).isEmpty)
        #expect(machine.tick(now: t0 + 1502).changes.kinds == [.acknowledged])
    }

    @Test("extensionTimeout goes with every send of the notification, and only with it")
    func extensionTimeout() {
        var machine = DeliveryStateMachine(policy: DeliveryPolicy())
        let session = RecordingSession()
        _ = machine.sessionOpened(session, tokens: [token], now: t0)
        let timed = machine.accepted(AcceptedNotification.fixture(token: token), deviceFault: DeviceFault(extensionTimeout: true), now: t0)
        let plain = machine.accepted(AcceptedNotification.fixture(token: token), now: t0)
        let flags = (timed + plain).compactMap { action -> Bool? in
            guard case .send(_, let delivery) = action else { return nil }
            return delivery.extensionTimeout
        }
        #expect(flags == [true, false])
    }

    @Test("offline windows: the one that ends last for a device's tokens; ended ones are forgotten")
    func offlineWindows() {
        var windows = OfflineWindows()
        let other = DeviceToken.random()
        windows.hold(token, OfflineWindow(ruleID: "a", untilMilliseconds: t0 + 100), now: t0)
        windows.hold(other, OfflineWindow(ruleID: "b", untilMilliseconds: t0 + 300), now: t0)
        // A shorter window does not cut a longer one short.
        windows.hold(other, OfflineWindow(ruleID: "c", untilMilliseconds: t0 + 200), now: t0)
        #expect(windows.window(for: [token, other], now: t0)?.ruleID == "b")
        #expect(windows.window(for: [token], now: t0 + 99)?.untilMilliseconds == t0 + 100)
        #expect(windows.window(for: [token], now: t0 + 100) == nil)
        #expect(windows.window(for: [DeviceToken.random()], now: t0) == nil)
        let window = OfflineWindow(ruleID: "b", untilMilliseconds: t0 + 300)
        #expect(window.retryAfterMilliseconds(now: t0 + 100) == 200)
        #expect(window.message(now: t0 + 100).contains("'b'"))
    }
}
