import HeraldStore
import Synchronization

/// Group commit for the engine's changes: the event loop appends, one writer task writes batches.
///
/// While a write is in flight new changes queue up, so the next write takes all of them (up to
/// ``maximumBatch``): one transaction serves many events, and the event loop never waits for the disk.
///
/// Paced: a batch is taken at most once per ``minimumInterval`` — unless the queue holds ``eagerBatch`` changes, an idle
/// waiter waits for it, or the journal is finished — so that at a moderate rate one transaction carries the changes of
/// many events instead of a few (a durable transaction costs this machine's core about 90 µs in `fdatasync` alone,
/// bench/delivery/profile-2026-11-27.md). Nothing but a write waits for the journal: sends and the gateway's `200` never
/// do. The writer parks while the interval runs; the engine's next append or tick (``poke()``) hands it its batch.
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
        /// When the last batch was taken.
        var lastTaken: ContinuousClock.Instant?

        /// The number of changes waiting for a write.
        var queuedCount: Int { queue.count - head }

        /// Whether the writer should take a batch now.
        func isDue(now: ContinuousClock.Instant?, interval: Duration, eagerBatch: Int) -> Bool {
            guard queuedCount > 0 else { return false }
            if finished || !barriers.isEmpty || queuedCount >= eagerBatch { return true }
            guard let now, let lastTaken else { return true }
            return now - lastTaken >= interval
        }

        /// Appends changes to the queue.
        mutating func enqueue(_ changes: [DeliveryChange]) {
            queue.append(contentsOf: changes)
            appended += changes.count
        }

        /// Takes the next batch, oldest changes first, without moving what stays queued (a large backlog
        /// after failed writes must not cost a copy of itself per batch).
        mutating func takeBatch(maximum: Int, now: ContinuousClock.Instant?) -> [DeliveryChange] {
            lastTaken = now
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
    /// The shortest time between two batches taken, unless one is due sooner (see the type's description).
    let minimumInterval: Duration
    /// A queue this long is written without waiting for the interval.
    let eagerBatch: Int
    private let state = Mutex(State())
    /// The time the pacing reads (a test's clock in tests).
    private let clock: @Sendable () -> ContinuousClock.Instant

    init(
        maximumBatch: Int,
        minimumInterval: Duration = .zero,
        clock: @escaping @Sendable () -> ContinuousClock.Instant = { ContinuousClock.now }
    ) {
        self.clock = clock
        self.maximumBatch = max(1, maximumBatch)
        self.minimumInterval = max(.zero, minimumInterval)
        // A quarter of the largest batch: under overload the writer is busy longer than the interval anyway.
        self.eagerBatch = max(1, self.maximumBatch / 4)
    }

    /// The time the pacing reads; none when the journal is not paced.
    private var now: ContinuousClock.Instant? {
        minimumInterval > .zero ? clock() : nil
    }

    private typealias Wake = (writer: CheckedContinuation<[DeliveryChange]?, Never>, batch: [DeliveryChange])

    /// Hands the parked writer its batch if one is due; call under the lock, resume outside it.
    private func wakeIfDue(_ state: inout State, now: ContinuousClock.Instant?) -> Wake? {
        guard let writer = state.parkedWriter, state.isDue(now: now, interval: minimumInterval, eagerBatch: eagerBatch) else { return nil }
        state.parkedWriter = nil
        return (writer, state.takeBatch(maximum: maximumBatch, now: now))
    }

    /// Queues changes; hands them to the parked writer when a batch is due. Returns the backlog after the append.
    @discardableResult
    func append(_ changes: [DeliveryChange]) -> Int {
        guard !changes.isEmpty else { return backlog }
        let now = now
        let (wake, backlog) = state.withLock { state -> (Wake?, Int) in
            state.enqueue(changes)
            return (wakeIfDue(&state, now: now), state.appended - state.written)
        }
        if let wake { wake.writer.resume(returning: wake.batch) }
        return backlog
    }

    /// Hands the parked writer its batch if the interval has run out meanwhile (the engine's tick calls it).
    func poke() {
        guard minimumInterval > .zero else { return }
        let now = now
        let wake = state.withLock { wakeIfDue(&$0, now: now) }
        if let wake { wake.writer.resume(returning: wake.batch) }
    }

    /// Registers an idle waiter for everything appended so far; `true` when that is already written. A waiting waiter
    /// makes the queue due at once.
    func addBarrier(_ id: UInt64) -> Bool {
        let now = now
        let (written, wake) = state.withLock { state -> (Bool, Wake?) in
            guard state.written < state.appended else { return (true, nil) }
            state.barriers.append((state.appended, id))
            return (false, wakeIfDue(&state, now: now))
        }
        if let wake { wake.writer.resume(returning: wake.batch) }
        return written
    }

    /// The next batch to write; waits while none is due; `nil` once finished and drained.
    func nextBatch() async -> [DeliveryChange]? {
        let now = now
        return await withCheckedContinuation { (continuation: CheckedContinuation<[DeliveryChange]?, Never>) in
            let ready = state.withLock { state -> [DeliveryChange]?? in
                if state.isDue(now: now, interval: minimumInterval, eagerBatch: eagerBatch) {
                    return .some(state.takeBatch(maximum: maximumBatch, now: now))
                }
                // Not due while finished: the queue is empty.
                if state.finished { return .some(nil) }
                state.parkedWriter = continuation
                return .none
            }
            if let ready { continuation.resume(returning: ready) }
        }
    }

    /// Whether the writer waits in ``nextBatch()`` (tests).
    var isWriterParked: Bool { state.withLock { $0.parkedWriter != nil } }

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
        let now = now
        let (wake, idle) = state.withLock { state -> (Wake?, CheckedContinuation<[DeliveryChange]?, Never>?) in
            state.finished = true
            if let wake = wakeIfDue(&state, now: now) { return (wake, nil) }
            defer { state.parkedWriter = nil }
            return (nil, state.parkedWriter)
        }
        if let wake { wake.writer.resume(returning: wake.batch) }
        idle?.resume(returning: nil)
    }
}
