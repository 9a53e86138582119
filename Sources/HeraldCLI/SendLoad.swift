import Foundation
import HeraldProviderClient
import Synchronization

#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif

/// `herald send --repeat N [--rate R]`: the same notification N times, evenly paced when a rate is given, never
/// more in flight than the server's stream limit; progress on standard error, then a summary.
struct SendLoad {
    let plan: SendPlan
    /// The push sent each time.
    let request: APNSRequest

    /// Runs the load; `true` when every notification was accepted.
    func run(_ client: APNSProviderClient) async throws -> Bool {
        let tally = SharedTally()
        let clock = ContinuousClock()
        let start = clock.now
        let total = plan.repeatCount
        let request = self.request
        let json = plan.json
        await withTaskGroup(of: Void.self) { tasks in
            tasks.addTask { await Self.reportProgress(tally, total: total, json: json) }
            await withTaskGroup(of: Void.self) { senders in
                var inFlight = 0
                for index in 0..<total {
                    if let rate = plan.rate {
                        // Due times count from the start, so a late wake-up is made up, not carried forward.
                        let due = start + .nanoseconds(Int64((Double(index) / rate * 1e9).rounded()))
                        if due > clock.now { try? await clock.sleep(until: due) }
                    }
                    while inFlight >= max(1, client.concurrentStreamLimit ?? 1) {
                        await senders.next()
                        inFlight -= 1
                    }
                    senders.addTask {
                        do {
                            let response = try await client.send(request)
                            tally.state.withLock { $0.record(response) }
                            if json { print(SendOutput.jsonLine(response)) }
                        } catch {
                            tally.state.withLock { $0.record(failure: error) }
                            if json { print(SendOutput.json(["error": "\(error)"])) }
                        }
                    }
                    inFlight += 1
                }
            }
            tasks.cancelAll()
        }
        let elapsed = clock.now - start
        let final = tally.state.withLock { $0 }
        if json {
            print(SendOutput.json(final.summaryJSON(elapsed: elapsed)))
        } else {
            for line in final.summaryLines(elapsed: elapsed) { print(line) }
        }
        return final.accepted == total
    }

    /// Until cancelled: a bar redrawn ten times a second when standard error is a terminal (and JSON lines are not
    /// going to the same terminal), else a line every second.
    private static func reportProgress(_ tally: SharedTally, total: Int, json: Bool) async {
        let interactive = isatty(STDERR_FILENO) == 1 && !(json && isatty(STDOUT_FILENO) == 1)
        let interval: Duration = interactive ? .milliseconds(100) : .seconds(1)
        while true {
            do {
                try await Task.sleep(for: interval)
            } catch {
                break
            }
            // Only the counts: a copy of the tally would make the next record copy its latencies.
            let (finished, progress) = tally.state.withLock { ($0.finished, $0.progress(of: total)) }
            if interactive {
                writeStandardError("\r" + bar(finished, of: total) + "  " + progress + "\u{1B}[K")
            } else {
                writeStandardError("herald: " + progress + "\n")
            }
        }
        if interactive { writeStandardError("\r\u{1B}[K") }
    }

    /// `[########------------]`, 20 cells.
    static func bar(_ done: Int, of total: Int) -> String {
        let width = 20
        let filled = total > 0 ? min(width, done * width / total) : width
        return "[" + String(repeating: "#", count: filled) + String(repeating: "-", count: width - filled) + "]"
    }

    private static func writeStandardError(_ text: String) {
        FileHandle.standardError.write(Data(text.utf8))
    }
}

/// The tally the sending tasks share.
private final class SharedTally: Sendable {
    let state = Mutex(SendTally())
}
