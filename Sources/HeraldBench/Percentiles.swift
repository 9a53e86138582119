import HeraldCore

/// Latency percentiles in milliseconds (nearest rank); all zero when there were no samples.
struct Percentiles: Codable, Sendable, Hashable {
    var count = 0
    var p50 = 0.0
    var p90 = 0.0
    var p99 = 0.0
    var max = 0.0

    /// No samples.
    init() {}

    /// The percentiles of samples in nanoseconds; sorts them in place.
    init(nanoseconds samples: inout [UInt64]) {
        guard !samples.isEmpty else { return }
        samples.sort()
        func rank(_ fraction: Double) -> Double {
            Double(NearestRank.percentile(fraction, ofSorted: samples) ?? 0) / 1e6
        }
        count = samples.count
        p50 = rank(0.50)
        p90 = rank(0.90)
        p99 = rank(0.99)
        max = Double(samples[samples.count - 1]) / 1e6
    }
}

/// The median of some values (the mean of the middle two for an even count); `nil` for none.
func median(_ values: [Double]) -> Double? {
    guard !values.isEmpty else { return nil }
    let sorted = values.sorted()
    let middle = sorted.count / 2
    return sorted.count % 2 == 1 ? sorted[middle] : (sorted[middle - 1] + sorted[middle]) / 2
}
