/// A min-heap of deadlines: the notification that expires first is always at the top.
///
/// Items are never removed from the middle: when a notification is sent, delivered or replaced its item
/// stays until it comes up, and the owner skips it then (``Item/order`` tells a stale item from a live one).
struct DeadlineQueue {
    /// One deadline.
    struct Item {
        /// When it expires, in milliseconds since the epoch.
        var deadline: Int64
        /// The notification's arrival order in the state machine: unique, so a reused `apns-id` is not confused.
        var order: UInt64
        /// The notification's key.
        var key: String
    }

    private var heap: [Item] = []

    /// An empty queue.
    init() {}

    /// A queue of these items.
    init(_ items: [Item]) {
        heap = items
        var index = heap.count / 2
        while index > 0 {
            index -= 1
            siftDown(index)
        }
    }

    /// The number of items, stale ones included.
    var count: Int { heap.count }

    /// The item with the earliest deadline.
    var first: Item? { heap.first }

    /// Adds an item.
    mutating func push(_ item: Item) {
        heap.append(item)
        var child = heap.count - 1
        while child > 0 {
            let parent = (child - 1) / 2
            guard Self.precedes(heap[child], heap[parent]) else { break }
            heap.swapAt(child, parent)
            child = parent
        }
    }

    /// Removes the item with the earliest deadline.
    @discardableResult
    mutating func removeFirst() -> Item? {
        guard !heap.isEmpty else { return nil }
        heap.swapAt(0, heap.count - 1)
        let item = heap.removeLast()
        siftDown(0)
        return item
    }

    private mutating func siftDown(_ start: Int) {
        var parent = start
        while true {
            let left = 2 * parent + 1
            let right = left + 1
            var smallest = parent
            if left < heap.count, Self.precedes(heap[left], heap[smallest]) { smallest = left }
            if right < heap.count, Self.precedes(heap[right], heap[smallest]) { smallest = right }
            guard smallest != parent else { return }
            heap.swapAt(parent, smallest)
            parent = smallest
        }
    }

    /// Earlier deadline first; among equal deadlines, the older notification first.
    private static func precedes(_ lhs: Item, _ rhs: Item) -> Bool {
        (lhs.deadline, lhs.order) < (rhs.deadline, rhs.order)
    }
}
