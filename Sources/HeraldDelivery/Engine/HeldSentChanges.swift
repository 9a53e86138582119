import HeraldStore

/// `sent` changes the engine holds back until their notification's next change, so that a delivered notification's
/// `sent` and `acknowledged` reach the store together: one UPDATE of its row instead of two (docs/delivery.md, "When a
/// trace is written").
///
/// Why it may wait: `sent` moves no state. A crash before it is written loses one trace line of a notification that is
/// still `stored` in the store, and so is sent again after the restart, which traces its own `sent`. What is held is
/// written before any later change of the same notification (by sequence), after ``hold`` at the latest (at the engine's
/// next tick), before an idle waiter that waits for the journal is resumed, and at shutdown.
struct HeldSentChanges {
    private struct Held {
        var change: DeliveryChange
        /// Tells this hold from a later one of the same sequence in ``order``.
        var generation: UInt64
    }

    /// How long a `sent` may wait for its notification's next change, in milliseconds; `0` holds nothing.
    let holdMilliseconds: Int64
    private var held: [Int64: Held] = [:]
    /// Holds in the order they began: `(sequence, generation, since)`; a released one is skipped when reached.
    private var order: [(sequence: Int64, generation: UInt64, since: Int64)] = []
    private var head = 0
    private var nextGeneration: UInt64 = 0

    init(holdMilliseconds: Int64) {
        self.holdMilliseconds = max(0, holdMilliseconds)
    }

    /// How many `sent` changes are held.
    var count: Int { held.count }

    /// Adds `change` to `changes` for the journal, after the held `sent` of its notification; holds it instead when it
    /// is a `sent` that names its sequence.
    mutating func route(_ change: DeliveryChange, now: Int64, into changes: inout [DeliveryChange]) {
        guard let sequence = change.sequence else {
            changes.append(change)
            return
        }
        if !held.isEmpty, let previous = held.removeValue(forKey: sequence) {
            changes.append(previous.change)
        }
        guard holdMilliseconds > 0, change.event == .sent, change.newState == nil else {
            changes.append(change)
            return
        }
        nextGeneration &+= 1
        held[sequence] = Held(change: change, generation: nextGeneration)
        order.append((sequence, nextGeneration, now))
    }

    /// Releases the `sent` changes held since before `now - holdMilliseconds`, oldest first.
    mutating func releaseExpired(now: Int64, into changes: inout [DeliveryChange]) {
        let cutoff = now - holdMilliseconds
        release(into: &changes) { $0 <= cutoff }
    }

    /// Releases every held `sent` change, oldest first.
    mutating func releaseAll(into changes: inout [DeliveryChange]) {
        release(into: &changes) { _ in true }
    }

    private mutating func release(into changes: inout [DeliveryChange], while due: (Int64) -> Bool) {
        while head < order.count, due(order[head].since) {
            let item = order[head]
            head += 1
            if let entry = held[item.sequence], entry.generation == item.generation {
                held[item.sequence] = nil
                changes.append(entry.change)
            }
        }
        if head == order.count {
            order.removeAll(keepingCapacity: order.count <= 4096)
            head = 0
        } else if head > 1024, head > order.count / 2 {
            order.removeFirst(head)
            head = 0
        }
    }
}
