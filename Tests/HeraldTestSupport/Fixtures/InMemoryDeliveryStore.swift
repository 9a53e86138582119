import HeraldCore
import HeraldStore

/// A store double: keeps every written batch; can fail or hold writes.
public actor InMemoryDeliveryStore: DeliveryStore {
    public private(set) var batches: [[DeliveryChange]] = []
    public private(set) var attempts = 0
    private var pending: [StoredNotification]
    private var failuresLeft = 0
    private var holdNext = false
    private var heldWrite: CheckedContinuation<Void, Never>?
    private var heldWaiters: [CheckedContinuation<Void, Never>] = []
    private var changeWaiters: [(count: Int, continuation: CheckedContinuation<Void, Never>)] = []

    /// What a write the test made fail throws.
    public struct InjectedFailure: Error {}

    /// A store whose pending notifications (read at the engine's start) are `pending`.
    public init(pending: [StoredNotification] = []) {
        self.pending = pending
    }

    public func pendingNotifications() async throws -> [StoredNotification] { pending }

    public func record(_ changes: [DeliveryChange]) async throws {
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
    public func waitForChanges(count: Int) async {
        guard changes.count < count else { return }
        await withCheckedContinuation { changeWaiters.append((count, $0)) }
    }

    /// Every change written, in order.
    public var changes: [DeliveryChange] { batches.flatMap { $0 } }

    /// The next `count` writes fail.
    public func failNext(_ count: Int) { failuresLeft = count }

    /// The next write waits in the store until ``releaseWrite()``.
    public func holdNextWrite() { holdNext = true }

    /// Waits until a write is being held.
    public func waitUntilWriteIsHeld() async {
        guard heldWrite == nil else { return }
        await withCheckedContinuation { heldWaiters.append($0) }
    }

    /// Lets the held write go on.
    public func releaseWrite() {
        heldWrite?.resume()
        heldWrite = nil
    }
}
