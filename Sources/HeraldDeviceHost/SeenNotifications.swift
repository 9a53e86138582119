import HeraldSimulator
import Synchronization

/// The notifications a device has been told of (``IncomingNotification/deliveryKey``: the apns-id and the acceptance
/// time), so a resend is told once while a provider's reused apns-id is a new notification (bounded: the newest 10,000).
final class SeenNotifications: Sendable {
    private let state = Mutex<(set: Set<String>, order: [String])>(([], []))

    /// Records `id`; `true` the first time.
    func insert(_ id: String) -> Bool {
        state.withLock { state in
            guard state.set.insert(id).inserted else { return false }
            state.order.append(id)
            if state.order.count > 10_000 {
                state.set.remove(state.order.removeFirst())
            }
            return true
        }
    }
}
