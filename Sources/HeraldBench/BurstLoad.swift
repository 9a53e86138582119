import Synchronization

/// A fixed number of requests at a fixed concurrency, as fast as the server answers them: the throughput of one kind
/// of push (`herald-bench webpush --phase throughput`).
///
/// `concurrency` workers each take the next request number and wait for its answer before taking another, so exactly
/// that many requests are in flight until the last ones; the requests are numbered so that the caller can build each
/// one beforehand (the sender's own cost, such as encryption, stays out of the measured interval).
enum BurstLoad {
    /// Sends requests `0..<count`, `concurrency` at a time, with `send` (which returns the answer's status) and counts
    /// the answers. The interval runs from the first send to the last answer.
    static func run(count: Int, concurrency: Int, send: @escaping @Sendable (Int) async throws -> Int) async -> BurstOutcome {
        let next = SharedCounter()
        let clock = ContinuousClock()
        let start = clock.now
        var outcome = await withTaskGroup(of: BurstOutcome.self) { workers in
            for _ in 0..<max(1, min(concurrency, count)) {
                workers.addTask {
                    var tally = BurstOutcome()
                    while true {
                        let index = next.value.add(1, ordering: .relaxed).oldValue
                        guard index < count else { return tally }
                        tally.sent += 1
                        do {
                            tally.record(status: try await send(index))
                        } catch {
                            tally.recordFailure("\(error)")
                        }
                    }
                }
            }
            var total = BurstOutcome()
            for await tally in workers { total.merge(tally) }
            return total
        }
        outcome.seconds = (clock.now - start).inSeconds
        return outcome
    }
}

/// What a ``BurstLoad`` run got: answers by kind and the time it took.
struct BurstOutcome: Codable, Sendable, Hashable {
    /// Requests handed to the client.
    var sent = 0
    /// Requests answered 2xx: the only ones a rate counts.
    var accepted = 0
    /// Answers outside 200–299, by status.
    var refused: [String: Int] = [:]
    /// Requests with no answer (the connection closed, a deadline passed), by error; the first kinds are kept.
    var failures: [String: Int] = [:]
    /// Requests with no answer.
    var failed = 0
    /// From the first send to the last answer.
    var seconds = 0.0

    /// Counts one answer.
    mutating func record(status: Int) {
        if (200..<300).contains(status) { accepted += 1 } else { refused[String(status), default: 0] += 1 }
    }

    /// Counts one request without an answer.
    mutating func recordFailure(_ error: String) {
        failed += 1
        if failures[error] != nil || failures.count < 10 { failures[error, default: 0] += 1 }
    }

    /// Adds another worker's counts (not its time).
    mutating func merge(_ other: BurstOutcome) {
        sent += other.sent
        accepted += other.accepted
        failed += other.failed
        refused.merge(other.refused, uniquingKeysWith: +)
        for (error, count) in other.failures where failures[error] != nil || failures.count < 10 { failures[error, default: 0] += count }
    }

    /// Accepted requests per second; 0 for a run that took no time.
    var acceptedPerSecond: Double { seconds > 0 ? Double(accepted) / seconds : 0 }

    /// Whether every request sent was answered 2xx: a run with any other answer, or none, measures nothing.
    var isClean: Bool { sent > 0 && accepted == sent }

    /// `4 × 403, 2 × no answer`: what was not 2xx, for a failure message.
    var problems: String {
        var parts = refused.sorted { $0.key < $1.key }.map { "\($0.value) × \($0.key)" }
        if failed > 0 { parts.append("\(failed) × no answer (\(failures.keys.sorted().joined(separator: "; ")))") }
        return parts.joined(separator: ", ")
    }
}

/// A counter shared by concurrent tasks (an `Atomic` cannot be captured by a task's closure; a class holding one can).
final class SharedCounter: Sendable {
    /// The count.
    let value = Atomic<Int>(0)
}
