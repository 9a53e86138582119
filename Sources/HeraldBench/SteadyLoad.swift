import HeraldCore
import HeraldProviderClient
import Synchronization

/// A provider posting at a steady rate to random devices, over one or more HTTP/2 connections.
///
/// Notification `i` is due at `start + i / rate`; the sender wakes at most every millisecond and sends what is due,
/// so the rate holds over any millisecond, and a late wake-up is made up rather than carried forward. When the
/// server answers so slowly that ``maximumInFlight`` requests are outstanding, sending stalls and the lag is
/// reported: the offered rate was not sustained. Sending stops one second after the run's time in any case.
struct SteadyLoad: Sendable {
    /// What the sender itself managed.
    struct Outcome: Sendable {
        /// Notifications the run should send (`rate × seconds`).
        var scheduled = 0
        /// The most notifications that were due but not yet sent at any wake-up.
        var maximumLag = 0
        /// From the start to the last send.
        var sendSeconds = 0.0
    }

    /// The provider connections; notifications go round-robin over them.
    var clients: [APNSProviderClient]
    /// The devices' tokens (hex); each notification picks one at random.
    var tokens: [String]
    /// The JSON payload of every notification.
    var payload: [UInt8]
    /// `apns-topic`.
    var topic: String
    /// The most requests waiting for their answer.
    var maximumInFlight: Int

    /// Sends `rate × seconds` notifications of run `run` (fewer when the server holds it back) and returns when each
    /// sent one has its answer (or failed).
    func run(_ run: UInt32, rate: Double, seconds: Double, ledger: DeliveryLedger) async -> Outcome {
        let total = Int((rate * seconds).rounded())
        ledger.start(run: run, capacity: total)
        var outcome = Outcome(scheduled: total)
        guard total > 0, !tokens.isEmpty, !clients.isEmpty else { return outcome }
        let inFlight = InFlightCount()
        let clock = ContinuousClock()
        let start = clock.now
        var generator = SystemRandomNumberGenerator()
        var next = 0
        await withDiscardingTaskGroup { tasks in
            while next < total {
                let elapsed = (clock.now - start).inSeconds
                // An overloaded server must not stretch a run without end: what is not sent a second after the
                // run's time is left unsent (and shows as lag).
                guard elapsed < seconds + 1 else {
                    outcome.maximumLag = max(outcome.maximumLag, total - next)
                    break
                }
                let due = min(total, Int(elapsed * rate) + 1)
                while next < due, inFlight.value.load(ordering: .relaxed) < maximumInFlight {
                    let request = APNSRequest(
                        deviceToken: tokens[Int.random(in: 0..<tokens.count, using: &generator)],
                        payload: payload,
                        topic: topic,
                        pushType: .alert,
                        priority: .immediate,
                        apnsID: BenchNotificationID.make(run: run, index: next)
                    )
                    let client = clients[next % clients.count]
                    let index = next
                    next += 1
                    inFlight.value.add(1, ordering: .relaxed)
                    tasks.addTask {
                        ledger.sent(index, at: DeliveryLedger.now())
                        do {
                            let response = try await client.send(request)
                            ledger.answered(index, status: response.status, at: DeliveryLedger.now())
                        } catch {
                            ledger.failed(index, error: "\(error)", at: DeliveryLedger.now())
                        }
                        inFlight.value.subtract(1, ordering: .relaxed)
                    }
                }
                outcome.maximumLag = max(outcome.maximumLag, due - next)
                guard next < total else { break }
                let nextDue = start + .seconds(Double(next) / rate)
                try? await clock.sleep(until: max(nextDue, clock.now + .milliseconds(1)), tolerance: .microseconds(100))
            }
            outcome.sendSeconds = (clock.now - start).inSeconds
        }
        return outcome
    }
}

/// Requests waiting for their answer, shared by the sender and the sending tasks.
private final class InFlightCount: Sendable {
    let value = Atomic<Int>(0)
}
