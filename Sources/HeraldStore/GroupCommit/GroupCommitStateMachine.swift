/// The pure logic of group commit: who queues, who writes, what one transaction takes, when shutdown ends.
///
/// Classic group commit: one writer at a time commits everything queued so far in one transaction.
/// While it commits, new items queue up, so the next batch is larger the busier the store is, and one
/// `fsync` serves many requests. The writer is started by the first item that finds it idle (no timer,
/// no polling), and it stops when it finds the queue empty.
///
/// The owner keeps this value behind a `Mutex` and performs the returned actions outside the lock.
package struct GroupCommitStateMachine<Item, Waiter> {
    /// What the caller of ``enqueue(_:)`` must do.
    package enum EnqueueAction {
        /// The writer was idle: start it (one write on the database's writer queue).
        case startWriter
        /// A writer is running and will take the item.
        case queued
        /// The item was not queued; complete it with this error.
        case rejected(StoreError)
    }

    /// What the writer must do next.
    package enum WriterAction {
        /// Commit these items in one transaction, then ask again.
        case commit([Item])
        /// Nothing is queued: the writer stops.
        case stop
        /// Nothing is queued and shutdown was requested: stop, then resume these waiters.
        case stopAndFinishShutdown([Waiter])
    }

    /// What the caller of ``shutdown(_:)`` must do.
    package enum ShutdownAction {
        /// Nothing is in flight: resume the waiter now.
        case resumeNow
        /// The writer is draining the queue; it resumes the waiter when it stops.
        case wait
    }

    private enum Lifecycle {
        case open
        case shuttingDown([Waiter])
        case closed
    }

    /// The most items one transaction takes.
    package let maximumBatchSize: Int
    /// The most items that may wait for a commit; more are rejected with ``StoreError/overloaded``.
    package let maximumPending: Int

    private var pending: [Item] = []
    private var writerIsRunning = false
    private var lifecycle = Lifecycle.open

    package init(maximumBatchSize: Int, maximumPending: Int) {
        self.maximumBatchSize = max(1, maximumBatchSize)
        self.maximumPending = max(1, maximumPending)
    }

    /// The number of items waiting for a writer.
    package var pendingCount: Int { pending.count }

    /// Whether shutdown has been requested (or has finished).
    package var isShuttingDownOrClosed: Bool {
        if case .open = lifecycle { return false }
        return true
    }

    /// Queues an item.
    package mutating func enqueue(_ item: Item) -> EnqueueAction {
        guard case .open = lifecycle else { return .rejected(.shutDown) }
        // Why a bound: an unbounded queue turns a slow disk into unbounded memory and latency; APNs
        // itself answers `503 ServiceUnavailable` when it is overloaded (spec §A.5).
        guard pending.count < maximumPending else {
            return .rejected(StoreError.overloaded.with(detail: "\(pending.count) notifications are waiting for a commit"))
        }
        pending.append(item)
        guard !writerIsRunning else { return .queued }
        writerIsRunning = true
        return .startWriter
    }

    /// Called by the running writer when it is ready for its next transaction.
    package mutating func nextBatch() -> WriterAction {
        precondition(writerIsRunning, "nextBatch() called with no writer running")
        guard !pending.isEmpty else {
            writerIsRunning = false
            guard case .shuttingDown(let waiters) = lifecycle else { return .stop }
            lifecycle = .closed
            return .stopAndFinishShutdown(waiters)
        }
        if pending.count <= maximumBatchSize {
            var batch: [Item] = []
            swap(&batch, &pending)
            return .commit(batch)
        }
        let batch = Array(pending.prefix(maximumBatchSize))
        pending.removeFirst(maximumBatchSize)
        return .commit(batch)
    }

    /// Requests shutdown: no new items are taken, queued items are still committed.
    package mutating func shutdown(_ waiter: Waiter) -> ShutdownAction {
        switch lifecycle {
        case .closed:
            return .resumeNow
        case .shuttingDown(var waiters):
            waiters.append(waiter)
            lifecycle = .shuttingDown(waiters)
            return .wait
        case .open:
            if writerIsRunning {
                lifecycle = .shuttingDown([waiter])
                return .wait
            }
            // An idle writer means the queue is empty: enqueue starts the writer whenever it adds an item.
            lifecycle = .closed
            return .resumeNow
        }
    }
}
