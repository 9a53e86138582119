import HeraldCore
import Synchronization

/// The apns-ids a device has been told of, so a resend is told once (bounded: the newest 10,000).
final class SeenNotifications: Sendable {
    private let state = Mutex<(set: Set<NotificationID>, order: [NotificationID])>(([], []))

    /// Records `id`; `true` the first time.
    func insert(_ id: NotificationID) -> Bool {
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
