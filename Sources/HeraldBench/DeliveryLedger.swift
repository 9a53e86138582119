import HeraldCore
import NIOCore
import Synchronization

/// The record of one run: when each notification was handed to the provider client, what the server answered,
/// and when a device received it. Shared by the sending tasks and every device's receiving task.
///
/// A notification is known by its index in the run, carried in its `apns-id` (``BenchNotificationID``), so a
/// receipt needs no lookup table. Times are `CLOCK_MONOTONIC` nanoseconds of this process (``now()``).
final class DeliveryLedger: Sendable {
    private struct State {
        var run: UInt32 = 0
        var sentAt: [UInt64] = []
        var answeredAt: [UInt64] = []
        var status: [Int16] = []
        var receivedAt: [UInt64] = []
        var received = 0
        var duplicates = 0
        var strays = 0
        var lastReceipt: UInt64 = 0
        var linkErrors = 0
        var linksClosed = 0
        var failures: [String: Int] = [:]
    }

    private let state = Mutex(State())

    /// The monotonic clock every time in the ledger is read from.
    static func now() -> UInt64 {
        NIODeadline.now().uptimeNanoseconds
    }

    /// Starts run `run` with room for `capacity` notifications; what arrives for another run from now on is a stray.
    func start(run: UInt32, capacity: Int) {
        state.withLock { state in
            let linkErrors = state.linkErrors
            let linksClosed = state.linksClosed
            state = State()
            state.run = run
            state.sentAt = Array(repeating: 0, count: capacity)
            state.answeredAt = Array(repeating: 0, count: capacity)
            state.status = Array(repeating: 0, count: capacity)
            state.receivedAt = Array(repeating: 0, count: capacity)
            state.linkErrors = linkErrors
            state.linksClosed = linksClosed
        }
    }

    /// Notification `index` is handed to the provider client now.
    func sent(_ index: Int, at time: UInt64) {
        state.withLock { $0.sentAt[index] = time }
    }

    /// The server answered notification `index` with `status` (`-1`: no answer, the request failed).
    func answered(_ index: Int, status: Int, at time: UInt64) {
        state.withLock { state in
            state.answeredAt[index] = time
            state.status[index] = Int16(clamping: status)
        }
    }

    /// The request for notification `index` got no answer: `error` says why (the first kinds are kept, counted).
    func failed(_ index: Int, error: String, at time: UInt64) {
        state.withLock { state in
            state.answeredAt[index] = time
            state.status[index] = -1
            if state.failures[error] != nil || state.failures.count < 10 { state.failures[error, default: 0] += 1 }
        }
    }

    /// A device received a notification; the first receipt of each counts, later ones are duplicates.
    func received(_ id: NotificationID, at time: UInt64) {
        let parsed = BenchNotificationID.parse(id.text)
        state.withLock { state in
            guard let parsed, parsed.run == state.run, parsed.index < state.receivedAt.count else {
                state.strays += 1
                return
            }
            if state.receivedAt[parsed.index] != 0 {
                state.duplicates += 1
                return
            }
            state.receivedAt[parsed.index] = time
            state.received += 1
            state.lastReceipt = max(state.lastReceipt, time)
        }
    }

    /// The server sent a device an `error` frame.
    func linkError() {
        state.withLock { $0.linkErrors += 1 }
    }

    /// A device's link closed (the benchmark never closes one while it runs).
    func linkClosed() {
        state.withLock { $0.linksClosed += 1 }
    }

    /// Accepted (200) notifications no device has received yet, among the first `count`.
    func undelivered(of count: Int) -> Int {
        state.withLock { state in
            var missing = 0
            for index in 0..<min(count, state.status.count) where state.status[index] == 200 && state.receivedAt[index] == 0 {
                missing += 1
            }
            return missing
        }
    }

    /// Links closed since the benchmark started.
    var closedLinks: Int { state.withLock { $0.linksClosed } }

    /// The figures of the first `count` notifications of the run.
    func measure(count: Int) -> LedgerFigures {
        state.withLock { state in
            var figures = LedgerFigures()
            var latencies: [UInt64] = []
            var answers: [UInt64] = []
            latencies.reserveCapacity(count)
            answers.reserveCapacity(count)
            var firstSent = UInt64.max
            var lastAnswer: UInt64 = 0
            for index in 0..<min(count, state.sentAt.count) {
                let sentAt = state.sentAt[index]
                guard sentAt != 0 else { continue }
                figures.sent += 1
                firstSent = min(firstSent, sentAt)
                let status = state.status[index]
                if state.answeredAt[index] != 0 {
                    lastAnswer = max(lastAnswer, state.answeredAt[index])
                    answers.append(state.answeredAt[index] &- sentAt)
                }
                switch status {
                case 200: figures.accepted += 1
                case -1: figures.failed += 1
                default: figures.refused[Int(status), default: 0] += 1
                }
                let receivedAt = state.receivedAt[index]
                if receivedAt != 0 {
                    latencies.append(receivedAt > sentAt ? receivedAt - sentAt : 0)
                    if status != 200 { figures.receivedWithout200 += 1 }
                } else if status == 200 {
                    figures.lost += 1
                }
            }
            figures.received = latencies.count
            figures.duplicates = state.duplicates
            figures.strays = state.strays
            figures.linkErrors = state.linkErrors
            figures.linksClosed = state.linksClosed
            figures.failures = state.failures
            if firstSent != .max {
                figures.acceptSeconds = lastAnswer > firstSent ? Double(lastAnswer - firstSent) / 1e9 : 0
                figures.deliverySeconds = state.lastReceipt > firstSent ? Double(state.lastReceipt - firstSent) / 1e9 : 0
            }
            figures.latency = Percentiles(nanoseconds: &latencies)
            figures.answerLatency = Percentiles(nanoseconds: &answers)
            return figures
        }
    }
}

/// What a ``DeliveryLedger`` holds about a run, counted.
struct LedgerFigures: Sendable {
    var sent = 0
    var accepted = 0
    var refused: [Int: Int] = [:]
    var failed = 0
    /// Why requests failed, by error text.
    var failures: [String: Int] = [:]
    var received = 0
    var lost = 0
    var receivedWithout200 = 0
    var duplicates = 0
    var strays = 0
    var linkErrors = 0
    var linksClosed = 0
    /// From the first send to the last answer.
    var acceptSeconds = 0.0
    /// From the first send to the last receipt.
    var deliverySeconds = 0.0
    /// Device receipt minus provider send.
    var latency = Percentiles()
    /// Server answer minus provider send.
    var answerLatency = Percentiles()
}

/// The `apns-id`s of the benchmark: `RRRRRRRR-0000-4000-8000-IIIIIIIIIIII`, the run and the index in hex, so that a
/// receipt names its own slot in the ledger. A valid version-4-shaped UUID, as the provider API requires.
enum BenchNotificationID {
    /// The identifier of notification `index` of run `run`.
    static func make(run: UInt32, index: Int) -> String {
        hex(UInt64(run), digits: 8) + "-0000-4000-8000-" + hex(UInt64(index), digits: 12)
    }

    /// The run and index of an identifier made by ``make(run:index:)``; `nil` for any other.
    static func parse(_ text: String) -> (run: UInt32, index: Int)? {
        let utf8 = Array(text.utf8)
        guard utf8.count == 36, let run = value(utf8[0..<8]), let index = value(utf8[24..<36]) else { return nil }
        return (UInt32(truncatingIfNeeded: run), Int(index))
    }

    private static func hex(_ value: UInt64, digits: Int) -> String {
        let text = String(value, radix: 16)
        return String(repeating: "0", count: max(0, digits - text.count)) + text
    }

    private static func value(_ digits: ArraySlice<UInt8>) -> UInt64? {
        var value: UInt64 = 0
        for byte in digits {
            let digit: UInt8
            switch byte {
            case UInt8(ascii: "0")...UInt8(ascii: "9"): digit = byte - UInt8(ascii: "0")
            case UInt8(ascii: "a")...UInt8(ascii: "f"): digit = byte - UInt8(ascii: "a") + 10
            case UInt8(ascii: "A")...UInt8(ascii: "F"): digit = byte - UInt8(ascii: "A") + 10
            default: return nil
            }
            value = value << 4 | UInt64(digit)
        }
        return value
    }
}
