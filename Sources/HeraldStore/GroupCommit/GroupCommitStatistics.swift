/// What group commit did so far: how many transactions, how many notifications, the largest batch.
struct GroupCommitStatistics: Hashable, Sendable {
    /// Transactions committed (or attempted).
    var batches = 0
    /// Notifications in those transactions.
    var notifications = 0
    /// The most notifications one transaction took.
    var largestBatch = 0

    mutating func record(batchSize: Int) {
        batches += 1
        notifications += batchSize
        largestBatch = max(largestBatch, batchSize)
    }
}
