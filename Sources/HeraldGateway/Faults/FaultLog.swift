import HeraldCore
import NIOConcurrencyHelpers
import NIOCore

/// The newest requests fault rules applied to, by `apns-id`: the `fault` events of the inspection API's traces
/// (docs/faults.md, "Seeing it").
///
/// Why in memory and not in the store: a request a rule answers with an error is not stored (as when APNs fails), so
/// there is no notification whose trace could hold the event; and a test harness's faults need not outlive the
/// process. The log keeps the newest ``capacity`` events; older ones are forgotten first.
public final class FaultLog: Sendable {
    /// One request a rule applied to.
    public struct Event: Sendable, Hashable {
        /// The request's `apns-id` (as answered), in its lowercase key form.
        public var key: String
        /// When the rule applied, in milliseconds since the epoch.
        public var atMilliseconds: Int64
        /// The rule's id.
        public var ruleID: String
        /// What the rule did: `{"rule": id, "status": 503, "reason": "…", "delayMs": 400, "connection": "goaway"}`, and
        /// the device-side effects (`deviceOfflineMs`, `ackDelayMs`, `extensionTimeout`), as JSON object text.
        public var detailJSON: String
    }

    private struct State {
        var order = CircularBuffer<Event>()
        var byKey: [String: [Event]] = [:]
    }

    /// The most events kept.
    public let capacity: Int
    private let state = NIOLockedValueBox(State())
    private let onRecorded: (@Sendable (NotificationID) -> Void)?

    /// An empty log keeping the newest `capacity` events; `onRecorded` is told of each (the console's live updates).
    public init(capacity: Int = 10_000, onRecorded: (@Sendable (NotificationID) -> Void)? = nil) {
        self.capacity = max(1, capacity)
        self.onRecorded = onRecorded
    }

    /// Records that `hit` applied to the request answered with `apnsID`.
    public func record(_ hit: FaultTable.Hit, apnsID: NotificationID, atMilliseconds: Int64) {
        let event = Event(key: apnsID.key, atMilliseconds: atMilliseconds, ruleID: hit.ruleID, detailJSON: Self.detail(hit))
        state.withLockedValue { state in
            state.order.append(event)
            state.byKey[event.key, default: []].append(event)
            if state.order.count > capacity {
                let oldest = state.order.removeFirst()
                if var events = state.byKey[oldest.key] {
                    events.removeFirst()
                    state.byKey[oldest.key] = events.isEmpty ? nil : events
                }
            }
        }
        onRecorded?(apnsID)
    }

    /// The events of the request(s) answered with this `apns-id`, oldest first.
    public func events(apnsID: NotificationID) -> [Event] {
        state.withLockedValue { $0.byKey[apnsID.key] ?? [] }
    }

    /// How many events the log holds.
    public var count: Int { state.withLockedValue { $0.order.count } }

    /// Forgets every event.
    public func removeAll() {
        state.withLockedValue { $0 = State() }
    }

    private static func detail(_ hit: FaultTable.Hit) -> String {
        var parts = [#""rule":\#(JSONString.quoted(hit.ruleID))"#]
        if let answer = hit.answer {
            parts.append(#""status":\#(answer.reason.status)"#)
            parts.append(#""reason":\#(JSONString.quoted(answer.reason.rawValue))"#)
        }
        if let delay = hit.delayMilliseconds { parts.append(#""delayMs":\#(delay)"#) }
        switch hit.connection {
        case .goAway(let reason)?: parts.append(#""connection":"goaway","goaway":\#(JSONString.quoted(reason))"#)
        case .reset?: parts.append(#""connection":"reset""#)
        case .close?: parts.append(#""connection":"close""#)
        case .stall(let milliseconds)?: parts.append(#""connection":"stall","stallMs":\#(milliseconds)"#)
        case nil: break
        }
        if let device = hit.device {
            if let offline = device.offlineMilliseconds { parts.append(#""deviceOfflineMs":\#(offline)"#) }
            if let delay = device.acknowledgementDelayMilliseconds { parts.append(#""ackDelayMs":\#(delay)"#) }
            if device.extensionTimeout { parts.append(#""extensionTimeout":true"#) }
        }
        return "{" + parts.joined(separator: ",") + "}"
    }
}
