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

    init(deviceID: String = "device-1", id: DeviceSessionID = .next()) {
        self.id = id
        self.deviceID = deviceID
    }

    func deliver(_ delivery: NotificationDelivery) {
        received.withLock { $0.deliveries.append(delivery) }
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

/// A notification for tests; accepted at `acceptedAt` (milliseconds).
func makeNotification(
    token: DeviceToken,
    id: NotificationID = .random(),
    priority: APNSPriority = .immediate,
    expiration: Int64? = nil,
    collapseID: String? = nil,
    acceptedAt: Int64 = 1_700_000_000_000,
    payload: String = #"{"aps":{"alert":"hello"}}"#
) -> AcceptedNotification {
    AcceptedNotification(
        id: id,
        token: token,
        topic: "com.example.app",
        bundleID: "com.example.app",
        environment: .sandbox,
        pushType: .alert,
        priority: priority,
        expiration: expiration,
        collapseID: collapseID,
        payload: Array(payload.utf8),
        acceptedAtMilliseconds: acceptedAt
    )
}

/// The detail of a change as a dictionary.
func detail(_ change: DeliveryChange) -> [String: Any] {
    guard let text = change.detailJSON, let object = try? JSONSerialization.jsonObject(with: Data(text.utf8)) else { return [:] }
    return object as? [String: Any] ?? [:]
}

/// A store double: keeps every written batch; can fail or hold writes.
actor InMemoryDeliveryStore: DeliveryStore {
    private(set) var batches: [[DeliveryChange]] = []
    private(set) var attempts = 0
    private var pending: [StoredNotification]
    private var failuresLeft = 0
    private var holdNext = false
    private var heldWrite: CheckedContinuation<Void, Never>?
    private var heldWaiters: [CheckedContinuation<Void, Never>] = []
    private var changeWaiters: [(count: Int, continuation: CheckedContinuation<Void, Never>)] = []

    struct InjectedFailure: Error {}

    init(pending: [StoredNotification] = []) {
        self.pending = pending
    }

    func pendingNotifications() async throws -> [StoredNotification] { pending }

    func record(_ changes: [DeliveryChange]) async throws {
        attempts += 1
        if holdNext {
            holdNext = false
            await withCheckedContinuation { continuation in
                heldWrite = continuation
                for waiter in heldWaiters { waiter.resume() }
                heldWaiters = []
            }
        }
        if failuresLeft > 0 {
            failuresLeft -= 1
            throw InjectedFailure()
        }
        batches.append(changes)
        let written = self.changes.count
        let ready = changeWaiters.filter { $0.count <= written }
        changeWaiters.removeAll { $0.count <= written }
        for waiter in ready { waiter.continuation.resume() }
    }

    /// Waits until at least `count` changes are written.
    func waitForChanges(count: Int) async {
        guard changes.count < count else { return }
        await withCheckedContinuation { changeWaiters.append((count, $0)) }
    }

    /// Every change written, in order.
    var changes: [DeliveryChange] { batches.flatMap { $0 } }

    /// The next `count` writes fail.
    func failNext(_ count: Int) { failuresLeft = count }

    /// The next write waits in the store until ``releaseWrite()``.
    func holdNextWrite() { holdNext = true }

    /// Waits until a write is being held.
    func waitUntilWriteIsHeld() async {
        guard heldWrite == nil else { return }
        await withCheckedContinuation { heldWaiters.append($0) }
    }

    /// Lets the held write go on.
    func releaseWrite() {
        heldWrite?.resume()
        heldWrite = nil
    }
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
