/// The store sequences a cluster node's engine finished (delivered, replaced, expired, discarded) whose change may not
/// be in the shared store yet, so that a row read from the store meanwhile — still `stored` there — is not taken again
/// and sent twice (docs/cluster.md).
///
/// A sequence is kept until the journal has written its change (``forget(writtenThrough:before:)``) and for a while
/// after that, so that a read that started before the write and answers after it is still recognised; a read takes at
/// most the store's operation timeout (10 s by default), so the default of 30 s covers it.
struct RecentlyFinished {
    private struct Item {
        var sequence: Int64
        /// The journal's count of appended changes once this one was appended: written when the journal's count of
        /// written changes reaches it.
        var journalMark: Int
        var finishedAt: Int64
    }

    private var items: [Item] = []
    private var head = 0
    private var sequences: [Int64: Int] = [:]

    /// How many sequences are kept.
    var count: Int { sequences.count }

    /// Whether the engine finished this sequence recently.
    func contains(_ sequence: Int64) -> Bool { sequences[sequence] != nil }

    /// Notes a finished sequence; `journalMark` and `finishedAt` do not decrease from one call to the next.
    mutating func insert(_ sequence: Int64, journalMark: Int, finishedAt: Int64) {
        items.append(Item(sequence: sequence, journalMark: journalMark, finishedAt: finishedAt))
        sequences[sequence, default: 0] += 1
    }

    /// Forgets the sequences whose change the journal has written (`written` changes so far) and that finished before
    /// `cutoff` (milliseconds).
    mutating func forget(writtenThrough written: Int, before cutoff: Int64) {
        while head < items.count, items[head].journalMark <= written, items[head].finishedAt < cutoff {
            let sequence = items[head].sequence
            if let remaining = sequences[sequence], remaining > 1 {
                sequences[sequence] = remaining - 1
            } else {
                sequences[sequence] = nil
            }
            head += 1
        }
        if head > 1024, head > items.count / 2 {
            items.removeFirst(head)
            head = 0
        }
    }
}
