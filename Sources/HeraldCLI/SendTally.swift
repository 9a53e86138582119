import Foundation
import HeraldCore
import HeraldProviderClient

/// The outcome of a `herald send --repeat` run so far: counts by answer, failures, and latencies.
struct SendTally: Sendable {
    /// Requests finished: answered or failed.
    private(set) var finished = 0
    /// Answers with status 200.
    private(set) var accepted = 0
    /// Other answers, by reason (`HTTP <status>` when the answer had none).
    private(set) var rejected: [String: Int] = [:]
    /// Requests without an answer, by error.
    private(set) var failed: [String: Int] = [:]
    /// The latency of every answer, in nanoseconds.
    private var latencies: [Int64] = []

    var rejectedCount: Int { rejected.values.reduce(0, +) }
    var failedCount: Int { failed.values.reduce(0, +) }

    mutating func record(_ response: APNSResponse) {
        finished += 1
        if response.isAccepted {
            accepted += 1
        } else {
            rejected[response.reason?.rawValue ?? "HTTP \(response.status)", default: 0] += 1
        }
        latencies.append(Int64(response.latency.components.seconds) * 1_000_000_000 + response.latency.components.attoseconds / 1_000_000_000)
    }

    mutating func record(failure: any Error) {
        finished += 1
        failed["\(failure)", default: 0] += 1
    }

    /// The latency below which a fraction `p` (0…1) of the answers fall (nearest rank); `nil` with no answers.
    func latency(percentile p: Double) -> Duration? {
        Self.latency(percentile: p, sorted: latencies.sorted())
    }

    private static func latency(percentile p: Double, sorted: [Int64]) -> Duration? {
        NearestRank.percentile(p, ofSorted: sorted).map { .nanoseconds($0) }
    }

    /// p50, p90, p99 and max, sorting once; `nil` with no answers.
    private var summaryPercentiles: [(name: String, value: Duration)]? {
        let sorted = latencies.sorted()
        guard !sorted.isEmpty else { return nil }
        return [("p50", 0.5), ("p90", 0.9), ("p99", 0.99), ("max", 1)].compactMap { name, p in
            Self.latency(percentile: p, sorted: sorted).map { (name, $0) }
        }
    }

    /// The summary for people, a few lines.
    func summaryLines(elapsed: Duration) -> [String] {
        let seconds = SendOutput.roundedMilliseconds(elapsed) / 1000
        let rate = seconds > 0 ? Double(finished) / seconds : 0
        var head = "sent \(finished), accepted \(accepted), rejected \(rejectedCount)"
        if failedCount > 0 { head += ", no answer \(failedCount)" }
        head += String(format: " in %.2f s (%.0f/s)", seconds, rate)
        var lines = [head]
        for (reason, count) in rejected.sorted(by: { ($1.value, $0.key) < ($0.value, $1.key) }) {
            lines.append("  \(reason): \(count)")
        }
        for (error, count) in failed.sorted(by: { ($1.value, $0.key) < ($0.value, $1.key) }) {
            lines.append("  no answer (\(error)): \(count)")
        }
        if let percentiles = summaryPercentiles {
            lines.append("latency " + percentiles.map { "\($0.name) \(SendOutput.milliseconds($0.value)) ms" }.joined(separator: "  "))
        }
        return lines
    }

    /// The summary as `{"summary":{…}}`.
    func summaryJSON(elapsed: Duration) -> [String: JSONValue] {
        let seconds = SendOutput.roundedMilliseconds(elapsed) / 1000
        var summary: [String: JSONValue] = [
            "sent": .int(finished), "accepted": .int(accepted), "rejected": .int(rejectedCount), "failed": .int(failedCount),
            "reasons": .object(rejected.mapValues(JSONValue.int)), "errors": .object(failed.mapValues(JSONValue.int)),
            "seconds": .double(seconds), "rate": .double(seconds > 0 ? (Double(finished) / seconds * 10).rounded() / 10 : 0),
        ]
        if let percentiles = summaryPercentiles {
            summary["latencyMs"] = .object(
                Dictionary(uniqueKeysWithValues: percentiles.map { ($0.name, JSONValue.double(SendOutput.roundedMilliseconds($0.value))) })
            )
        }
        return ["summary": .object(summary)]
    }

    /// `312/1000 sent, 310 accepted, 2 rejected` for a progress line.
    func progress(of total: Int) -> String {
        var text = "\(finished)/\(total) sent, \(accepted) accepted, \(rejectedCount) rejected"
        if failedCount > 0 { text += ", \(failedCount) no answer" }
        return text
    }
}
