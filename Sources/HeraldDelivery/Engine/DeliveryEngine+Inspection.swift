import HeraldCore

/// How many notifications the engine holds in memory, for metrics.
public struct DeliveryCounts: Sendable, Hashable {
    /// Notifications not yet sent: waiting for an offline device, held for a low-priority burst, or waiting behind
    /// an outstanding notification with the same `apns-id`.
    public var pending: Int
    /// Notifications sent and not yet acknowledged.
    public var outstanding: Int

    /// Creates counts.
    public init(pending: Int, outstanding: Int) {
        self.pending = pending
        self.outstanding = outstanding
    }
}

extension DeliveryEngine {
    /// What the event loop publishes for readers on other threads.
    struct Snapshot {
        /// Open sessions per device id (devices without one are absent).
        var sessionsByDevice: [String: Int] = [:]
        var counts = DeliveryCounts(pending: 0, outstanding: 0)
    }

    /// Callers of ``waitUntilIdle()`` whose barrier event has not come up yet.
    struct IdleWaiters {
        var nextID: UInt64 = 0
        var waiting: [UInt64: CheckedContinuation<Void, Never>] = [:]
        var ended = false

        /// The run is over: takes every waiter, and later ones return at once.
        mutating func end() -> [CheckedContinuation<Void, Never>] {
            ended = true
            defer { waiting = [:] }
            return Array(waiting.values)
        }
    }

    /// Whether the device has an open device-link session (as of the last processed event).
    public func isOnline(deviceID: String) -> Bool {
        snapshot.withLock { $0.sessionsByDevice[deviceID] != nil }
    }

    /// The ids of the devices with an open device-link session.
    public var onlineDeviceIDs: Set<String> {
        snapshot.withLock { Set($0.sessionsByDevice.keys) }
    }

    /// How many notifications wait to be sent and to be acknowledged (as of the last processed event).
    public var counts: DeliveryCounts {
        snapshot.withLock { $0.counts }
    }

    /// Waits until every event queued before the call is processed and the changes it made are written.
    ///
    /// Returns at once when ``run()`` has ended; waits for it to start otherwise; during graceful shutdown,
    /// waits until ``run()`` has flushed the journal and returned. For tests and the CLI.
    public func waitUntilIdle() async {
        await barrier(waitForJournal: true)
    }

    /// Waits until every event queued before the call is processed (its changes may still be in the journal).
    func waitUntilProcessed() async {
        await barrier(waitForJournal: false)
    }

    /// Queues a tick now, as the ticker does every `tickInterval` (tests drive time with it).
    func tick() {
        enqueue(.tick)
    }

    private func barrier(waitForJournal: Bool) async {
        await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
            let id = idleWaiters.withLock { waiters -> UInt64? in
                guard !waiters.ended else { return nil }
                waiters.nextID += 1
                waiters.waiting[waiters.nextID] = continuation
                return waiters.nextID
            }
            guard let id else {
                continuation.resume()
                return
            }
            // After graceful shutdown began the event is dropped: the waiter is then resumed when run() ends,
            // after the journal is flushed.
            enqueue(.barrier(id, waitForJournal: waitForJournal))
        }
    }

    /// Resumes the waiters with these ids that are still waiting.
    func resumeIdleWaiters(_ ids: [UInt64]) {
        guard !ids.isEmpty else { return }
        let continuations = idleWaiters.withLock { waiters in ids.compactMap { waiters.waiting.removeValue(forKey: $0) } }
        for continuation in continuations { continuation.resume() }
    }
}
