import HeraldStore
import Synchronization

/// Group commit for the engine's changes: the event loop appends, one writer task writes batches.
///
/// While a write is in flight new changes queue up, so the next write takes all of them (up to
/// ``maximumBatch``): one transaction serves many events, and the event loop never waits for the disk.
final class DeliveryJournal: Sendable {
    /// The pure bookkeeping, kept behind the lock.
    struct State {
        /// Changes waiting for a write from `head` on (the written prefix is dropped when it dominates).
        var queue: [DeliveryChange] = []
        var head = 0
        /// Changes appended since the start.
        var appended = 0
        /// Changes written (or given up) since the start.
        var written = 0
        /// Idle waiters: each is resumed once `written` reaches its target.
        var barriers: [(target: Int, id: UInt64)] = []
        var parkedWriter: CheckedContinuation<[DeliveryChange]?, Never>?
        var finished = false

        /// The number of changes waiting for a write.
        var queuedCount: Int { queue.count - head }

        /// Appends changes to the queue.
        mutating func enqueue(_ changes: [DeliveryChange]) {
            queue.append(contentsOf: changes)
            appended += changes.count
        }

        /// Takes the next batch, oldest changes first, without moving what stays queued (a large backlog
        /// after failed writes must not cost a copy of itself per batch).
        mutating func takeBatch(maximum: Int) -> [DeliveryChange] {
            let end = min(queue.count, head + maximum)
            let batch = Array(queue[head..<end])
            head = end
            if head == queue.count {
                queue.removeAll(keepingCapacity: queue.count <= 4096)
                head = 0
            } else if head > queue.count / 2 {
                queue.removeFirst(head)
                head = 0
            }
            return batch
        }

        /// Removes and returns the barriers that are satisfied.
        mutating func takeSatisfiedBarriers() -> [UInt64] {
            let satisfied = barriers.prefix { $0.target <= written }.map(\.id)
            barriers.removeFirst(satisfied.count)
            return satisfied
        }
    }

    /// The most changes one write takes.
    let maximumBatch: Int
    private let state = Mutex(State())

    init(maximumBatch: Int) {
        self.maximumBatch = max(1, maximumBatch)
    }

    /// Queues changes; hands them to the writer at once when it is idle. Returns the backlog after the append.
    @discardableResult
    func append(_ changes: [DeliveryChange]) -> Int {
        guard !changes.isEmpty else { return backlog }
        let (wake, backlog) = state.withLock { state -> ((CheckedContinuation<[DeliveryChange]?, Never>, [DeliveryChange])?, Int) in
            state.enqueue(changes)
            let backlog = state.appended - state.written
            guard let writer = state.parkedWriter else { return (nil, backlog) }
            state.parkedWriter = nil
            return ((writer, state.takeBatch(maximum: maximumBatch)), backlog)
        }
        if let (writer, batch) = wake { writer.resume(returning: batch) }
        return backlog
    }

    /// Registers an idle waiter for everything appended so far; `true` when that is already written.
    func addBarrier(_ id: UInt64) -> Bool {
        state.withLock { state in
            guard state.written < state.appended else { return true }
            state.barriers.append((state.appended, id))
            return false
        }
    }

    /// The next batch to write; waits while the queue is empty; `nil` once finished and drained.
    func nextBatch() async -> [DeliveryChange]? {
        await withCheckedContinuation { (continuation: CheckedContinuation<[DeliveryChange]?, Never>) in
            let ready = state.withLock { state -> [DeliveryChange]?? in
                if state.queuedCount > 0 { return .some(state.takeBatch(maximum: maximumBatch)) }
                if state.finished { return .some(nil) }
                state.parkedWriter = continuation
                return .none
            }
            if let ready { continuation.resume(returning: ready) }
        }
    }

    /// Changes appended since the start.
    var appendedCount: Int { state.withLock { $0.appended } }

    /// Changes written (or given up) since the start.
    var writtenCount: Int { state.withLock { $0.written } }

    /// Changes appended and not yet written (or given up): the queue plus the batch being written.
    var backlog: Int {
        state.withLock { $0.appended - $0.written }
    }

    /// Notes that a batch was written (or given up); returns the idle waiters to resume.
    func didWrite(_ count: Int) -> [UInt64] {
        state.withLock { state in
            state.written += count
            return state.takeSatisfiedBarriers()
        }
    }

    /// No more changes will come: the writer drains the queue, then ``nextBatch()`` returns `nil`.
    func finish() {
        let writer = state.withLock { state -> CheckedContinuation<[DeliveryChange]?, Never>? in
            state.finished = true
            defer { state.parkedWriter = nil }
            return state.parkedWriter
        }
        writer?.resume(returning: nil)
    }
}
