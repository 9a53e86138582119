import ArgumentParser
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

    /// Runs the load; `true` when every notification was accepted. The first Ctrl-C stops it: what was sent is
    /// summed up, then it throws exit status 130 (a second Ctrl-C ends the process at once).
    func run(_ client: APNSProviderClient) async throws -> Bool {
        Interruption.trap()
        defer { Interruption.release() }
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
                        // Due times count from the start, so a late wake-up is made up, not carried forward; slept in
                        // steps of at most 100 ms, so that Ctrl-C is heard.
                        let due = start + .nanoseconds(Int64((Double(index) / rate * 1e9).rounded()))
                        while due > clock.now, !Interruption.happened {
                            try? await clock.sleep(until: min(due, clock.now + .milliseconds(100)))
                        }
                    }
                    if Interruption.happened { break }
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
                            if json { print(OutputFormat.jsonLine(["error": .string("\(error)")])) }
                        }
                    }
                    inFlight += 1
                }
            }
            tasks.cancelAll()
        }
        let elapsed = clock.now - start
        let final = tally.state.withLock { $0 }
        let interrupted = Interruption.happened
        if json {
            var summary = final.summaryJSON(elapsed: elapsed)
            if interrupted, var inner = summary["summary"]?.dictionaryValue {
                inner["interrupted"] = true
                summary["summary"] = .object(inner)
            }
            print(OutputFormat.jsonLine(summary))
        } else {
            if interrupted { print("interrupted (Ctrl-C) after \(final.finished) of \(total): the summary of those") }
            for line in final.summaryLines(elapsed: elapsed) { print(line) }
        }
        if interrupted { throw ExitCode(130) }
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

/// The first Ctrl-C (SIGINT) during a load, noted instead of ending the process, so that the load can say what it
/// did; the handler then restores the default, so a second Ctrl-C ends the process at once.
enum Interruption {
    private static let flag = Atomic<Bool>(false)

    /// Whether Ctrl-C was pressed since ``trap()``.
    static var happened: Bool { flag.load(ordering: .relaxed) }

    /// Notes the next SIGINT instead of ending the process.
    static func trap() {
        flag.store(false, ordering: .relaxed)
        signal(SIGINT) { _ in
            // Async-signal-safe only: an atomic store and signal(2).
            Interruption.flag.store(true, ordering: .relaxed)
            signal(SIGINT, SIG_DFL)
        }
    }

    /// SIGINT ends the process again.
    static func release() {
        signal(SIGINT, SIG_DFL)
    }
}

/// The tally the sending tasks share.
private final class SharedTally: Sendable {
    let state = Mutex(SendTally())
}
