import HeraldCore
import HeraldDeviceLink
import NIOCore
import Synchronization

/// One live update for the web console (`GET /api/v1/events`).
public struct ConsoleEvent: Sendable, Hashable {
    /// What changed (in HeraldDeviceLink, whose console relay messages carry it between a cluster's nodes).
    public typealias Change = ConsoleChange

    /// Its number: 1 for the first event of the process, one more for each later one.
    public var sequence: UInt64
    /// What changed.
    public var change: Change
}

/// The console's live updates: an in-memory ring of the newest events, read by long polling.
///
/// Appending never blocks and never waits (the delivery engine and the event loops append); a reader waits for
/// events newer than the last one it saw, up to a deadline.
public final class ConsoleEventLog: Sendable {
    private struct State {
        var events: CircularBuffer<ConsoleEvent>
        var lastSequence: UInt64 = 0
        var waiters: [ObjectIdentifier: OneShot<Void>] = [:]
        var closed = false
    }

    /// The most events kept; older ones are forgotten (a reader that fell behind gets what is left).
    public let capacity: Int
    private let state: Mutex<State>

    /// An empty log keeping the newest `capacity` events.
    public init(capacity: Int = 1000) {
        self.capacity = max(1, capacity)
        self.state = Mutex(State(events: CircularBuffer(initialCapacity: min(self.capacity, 1024))))
    }

    /// The sequence number of the newest event; 0 before the first.
    public var lastSequence: UInt64 { state.withLock { $0.lastSequence } }

    /// Appends an event and wakes the readers waiting for one.
    public func append(_ change: ConsoleEvent.Change) {
        let waiters = state.withLock { state -> [OneShot<Void>] in
            state.lastSequence += 1
            state.events.append(ConsoleEvent(sequence: state.lastSequence, change: change))
            if state.events.count > capacity { state.events.removeFirst() }
            defer { state.waiters = [:] }
            return Array(state.waiters.values)
        }
        for waiter in waiters { waiter.fulfil(()) }
    }

    /// The events after `sequence`, oldest first, and the sequence number to ask after next time (the newest).
    public func events(after sequence: UInt64) -> (events: [ConsoleEvent], next: UInt64) {
        state.withLock { state in
            let events = Array(state.events.filter { $0.sequence > sequence })
            return (events, state.lastSequence)
        }
    }

    /// The events after `sequence`; when there are none yet, waits up to `timeout` for one (then returns none).
    public func waitForEvents(after sequence: UInt64, timeout: Duration) async -> (events: [ConsoleEvent], next: UInt64) {
        let waiter = OneShot<Void>()
        let key = ObjectIdentifier(waiter)
        let ready = state.withLock { state -> Bool in
            // A sequence from before a restart (larger than the newest) answers at once, so the reader resyncs.
            if state.closed || state.lastSequence != sequence { return true }
            state.waiters[key] = waiter
            return false
        }
        if !ready {
            await waiter.value(within: timeout, otherwise: ())
            _ = state.withLock { $0.waiters.removeValue(forKey: key) }
        }
        return events(after: sequence)
    }

    /// Wakes every reader and makes later ones return at once (the server is shutting down).
    public func close() {
        let waiters = state.withLock { state -> [OneShot<Void>] in
            state.closed = true
            defer { state.waiters = [:] }
            return Array(state.waiters.values)
        }
        for waiter in waiters { waiter.fulfil(()) }
    }
}
