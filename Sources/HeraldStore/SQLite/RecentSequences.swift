/// The sequence numbers of the notifications the group commit inserted last, by `apns-id` key.
///
/// A hint for the delivery journal: with it, ``SQLiteStore/record(_:)`` finds a notification by its primary key
/// instead of by the random `apns-id` index, whose pages are mostly not in the cache any more by the time the
/// delivery changes of a notification are written (bench/gateway/results-2026-11-23.md).
///
/// Only a hint: the journal's statements also require the row with that sequence number to have that `apns-id`
/// (a sequence number is never reused, and an `apns-id` is on one row at most), and look the `apns-id` up otherwise.
/// So a hint made stale by a reused `apns-id`, by retention or by another process changes nothing but the speed.
struct RecentSequences {
    /// The most hints kept; when full, all are dropped and filling starts again.
    static let capacity = 1 << 16

    private var sequences: [String: Int64] = [:]

    /// Notes where notifications were inserted (`key` is the lowercase `apns-id`).
    mutating func insert(_ inserted: [(key: String, sequence: Int64)]) {
        if sequences.count + inserted.count > Self.capacity {
            sequences.removeAll(keepingCapacity: true)
        }
        for (key, sequence) in inserted {
            sequences[key] = sequence
        }
    }

    /// The sequence number the notification with this key was last inserted with, if still known.
    func sequence(ofKey key: String) -> Int64? {
        sequences[key]
    }
}
