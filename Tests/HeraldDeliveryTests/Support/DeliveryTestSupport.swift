import Foundation
import HeraldCore
import HeraldStore
import Synchronization

@testable import HeraldDelivery

/// A device session that keeps what it is sent.
final class RecordingSession: DeviceSession {
    struct Refusal: Hashable {
        var id: NotificationID
        var code: String
    }

    let id: DeviceSessionID
    let deviceID: String
    private let received = Mutex<(deliveries: [NotificationDelivery], refusals: [Refusal], disconnects: [String])>(([], [], []))
    /// Those waiting in ``waitForDeliveries(count:)``, each for a count.
    private let deliveryWaiters = Mutex<[(count: Int, continuation: CheckedContinuation<Void, Never>)]>([])

    init(deviceID: String = "device-1", id: DeviceSessionID = .next()) {
        self.id = id
        self.deviceID = deviceID
    }

    func deliver(_ delivery: NotificationDelivery) {
        let count = received.withLock { received in
            received.deliveries.append(delivery)
            return received.deliveries.count
        }
        let ready = deliveryWaiters.withLock { waiters in
            defer { waiters.removeAll { $0.count <= count } }
            return waiters.filter { $0.count <= count }
        }
        for waiter in ready { waiter.continuation.resume() }
    }

    /// Returns once the engine has sent at least `count` deliveries: the handshake of a test that waits for the engine
    /// (wrap it in `withDeadline`).
    func waitForDeliveries(count: Int) async {
        await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
            // The count is read under the waiters' lock, so a delivery between the two cannot be missed.
            let done = deliveryWaiters.withLock { waiters in
                guard deliveries.count < count else { return true }
                waiters.append((count, continuation))
                return false
            }
            if done { continuation.resume() }
        }
    }

    func refuse(_ id: NotificationID, code: String, message: String) {
        received.withLock { $0.refusals.append(Refusal(id: id, code: code)) }
    }

    func disconnect(code: String, message: String, retryAfterMilliseconds: Int64) {
        received.withLock { $0.disconnects.append(code) }
    }

    var deliveries: [NotificationDelivery] { received.withLock { $0.deliveries } }
    /// The codes of the disconnections the engine asked for.
    var disconnects: [String] { received.withLock { $0.disconnects } }
    var deliveredIDs: [NotificationID] { deliveries.map(\.notification.id) }
    var refusals: [Refusal] { received.withLock { $0.refusals } }
}

/// The detail of a change as a dictionary.
func detail(_ change: DeliveryChange) -> [String: Any] {
    guard let text = change.detailJSON, let object = try? JSONSerialization.jsonObject(with: Data(text.utf8)) else { return [:] }
    return object as? [String: Any] ?? [:]
}

extension Array where Element == DeliveryStateMachine.Action {
    /// The sends, in order: the session, the notification and the attempt.
    var sends: [(session: DeviceSessionID, id: NotificationID, attempt: Int)] {
        compactMap { action in
            guard case .send(let session, let delivery) = action else { return nil }
            return (session.id, delivery.notification.id, delivery.attempt)
        }
    }

    /// The ids sent, in order.
    var sentIDs: [NotificationID] { sends.map(\.id) }

    /// The recorded changes, in order.
    var changes: [DeliveryChange] {
        compactMap { action in
            guard case .record(let change) = action else { return nil }
            return change
        }
    }

    /// The delivery latencies reported for the metric, in milliseconds.
    var deliveryLatencies: [Int64] {
        compactMap { action in
            guard case .delivered(let latency) = action else { return nil }
            return latency
        }
    }

    /// The refusals: the session, the notification and the code.
    var refusals: [(session: DeviceSessionID, id: NotificationID, code: String)] {
        compactMap { action in
            guard case .refuse(let session, let id, let code, _) = action else { return nil }
            return (session.id, id, code)
        }
    }
}

extension Array where Element == DeliveryChange {
    /// The changes of one notification.
    func of(_ id: NotificationID) -> [DeliveryChange] { filter { $0.notificationID == id } }
    /// The event kinds, in order.
    var kinds: [TraceEventKind] { map(\.event) }
}
