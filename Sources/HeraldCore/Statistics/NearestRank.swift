/// Percentiles by nearest rank, for latency summaries (`herald send --repeat`, `herald-bench`).
///
/// The p-th percentile of n sorted samples is the sample at rank ⌈p·n⌉ (counting from 1): the smallest sample with
/// at least that fraction of all samples at or below it. It is always one of the samples, never an interpolation.
package enum NearestRank {
    /// The sample at `fraction` (0…1: 0.5 is the median, 0.99 p99, 1 the largest) of samples sorted in ascending
    /// order; `nil` when there are none. A fraction at or below 0 gives the smallest sample, above 1 the largest.
    package static func percentile<Samples: RandomAccessCollection>(_ fraction: Double, ofSorted sorted: Samples) -> Samples.Element? {
        guard !sorted.isEmpty else { return nil }
        let rank = (fraction * Double(sorted.count)).rounded(.up)
        let clamped = rank.isNaN ? 1 : Int(Swift.min(Double(sorted.count), Swift.max(1, rank)))
        return sorted[sorted.index(sorted.startIndex, offsetBy: clamped - 1)]
    }
}
