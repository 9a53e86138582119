import HeraldCore
import NIOConcurrencyHelpers
import NIOCore

/// The newest web pushes the push service refused, by `apns-id`: the `refused` events of the inspection API's traces
/// (docs/web-push.md, "Seeing why"), so that `herald trace <apns-id>` explains a `403 BadJwtToken` with the rule that
/// failed and the VAPID `sub` that sent it.
///
/// Why in memory: a refused push is not stored ("nothing stored" for bad input), so no notification's trace can hold
/// the event; as with ``FaultLog``, the newest ``capacity`` refusals are kept and older ones forgotten first.
public final class WebPushRefusalLog: Sendable {
    /// One refused push.
    public struct Refusal: Sendable, Hashable {
        /// The `apns-id` it was answered with, in its lowercase key form.
        public var key: String
        /// When, in milliseconds since the epoch.
        public var atMilliseconds: Int64
        /// `{"status":403,"reason":"BadJwtToken","explanation":"…","subscription":"…"}` as JSON object text.
        public var detailJSON: String
    }

    /// The most refusals kept.
    public let capacity: Int
    private let refusals = NIOLockedValueBox((order: CircularBuffer<Refusal>(), byKey: [String: Refusal]()))
    private let onRecorded: (@Sendable (NotificationID) -> Void)?

    /// An empty log keeping the newest `capacity` refusals; `onRecorded` is told of each (the console's live updates).
    public init(capacity: Int = 10_000, onRecorded: (@Sendable (NotificationID) -> Void)? = nil) {
        self.capacity = max(1, capacity)
        self.onRecorded = onRecorded
    }

    /// Records the refusal of the push answered with `apnsID`.
    public func record(apnsID: NotificationID, status: Int, reason: String, explanation: String, subscription: String, atMilliseconds: Int64) {
        let detail =
            #"{"status":\#(status),"reason":\#(JSONString.quoted(reason)),"explanation":\#(JSONString.quoted(explanation)),"#
            + #""subscription":\#(JSONString.quoted(String(subscription.prefix(200))))}"#
        let refusal = Refusal(key: apnsID.key, atMilliseconds: atMilliseconds, detailJSON: detail)
        refusals.withLockedValue { log in
            log.order.append(refusal)
            log.byKey[refusal.key] = refusal
            if log.order.count > capacity {
                let oldest = log.order.removeFirst()
                if log.byKey[oldest.key] == oldest { log.byKey[oldest.key] = nil }
            }
        }
        onRecorded?(apnsID)
    }

    /// The refusal of the push answered with this `apns-id`, if the log still has it.
    public func refusal(apnsID: NotificationID) -> Refusal? {
        refusals.withLockedValue { $0.byKey[apnsID.key] }
    }

    /// How many refusals the log holds.
    public var count: Int { refusals.withLockedValue { $0.order.count } }

    /// Forgets every refusal.
    public func removeAll() {
        refusals.withLockedValue { $0 = (CircularBuffer(), [:]) }
    }
}
