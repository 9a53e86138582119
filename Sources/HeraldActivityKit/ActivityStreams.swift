import Foundation

/// The async sequences ActivityKit hands out (`pushTokenUpdates`, `activityStateUpdates`, `contentUpdates`,
/// `activityUpdates`, `pushToStartTokenUpdates`): each is a subscriber that turns the center's events into its values.
struct ActivityStreams {
    /// Hands one value to one stream; run outside the center's lock.
    typealias Delivery = @Sendable () -> Void
    /// Given an event and the records after it, the value to deliver, if the event concerns the stream.
    typealias Subscriber = @Sendable (ActivityEvent, [String: ActivityRecord]) -> Delivery?

    private var subscribers: [Int: Subscriber] = [:]
    private var nextID = 0

    mutating func add(_ subscriber: @escaping Subscriber) -> Int {
        nextID += 1
        subscribers[nextID] = subscriber
        return nextID
    }

    mutating func remove(_ id: Int) {
        subscribers[id] = nil
    }

    func deliveries(for event: ActivityEvent, records: [String: ActivityRecord]) -> [Delivery] {
        subscribers.keys.sorted().compactMap { subscribers[$0]?(event, records) }
    }
}

extension ActivityCenter {
    /// A stream of the values `map` makes of the center's events; `initial` first, when it has one.
    func stream<Value: Sendable>(
        initial: Value? = nil,
        _ map: @escaping @Sendable (ActivityEvent, [String: ActivityRecord]) -> Value?
    ) -> AsyncStream<Value> {
        let (stream, continuation) = AsyncStream.makeStream(of: Value.self)
        if let initial { continuation.yield(initial) }
        let id = state.withLock { state in
            state.streams.add { event, records in
                guard let value = map(event, records) else { return nil }
                return { continuation.yield(value) }
            }
        }
        continuation.onTermination = { [weak self] _ in
            self?.state.withLock { $0.streams.remove(id) }
        }
        return stream
    }
}
