import Synchronization

/// The record of one latency run of `herald-bench webpush`: when each web push was handed to the provider client,
/// what the push service answered, and when its web app had it ready to show. Times are ``DeliveryLedger/now()``.
final class ShownLedger: Sendable {
    private struct State {
        var run = -1
        var sentAt: [UInt64] = []
        var answeredAt: [UInt64] = []
        var status: [Int16] = []
        var shownAt: [UInt64] = []
        var notShown: [String: Int] = [:]
        var duplicates = 0
        var strays = 0
        var failures: [String: Int] = [:]
    }

    private let state = Mutex(State())

    /// Starts run `run` of `count` messages; anything shown for another run from now on is a stray.
    func start(run: Int, count: Int) {
        state.withLock { state in
            state = State()
            state.run = run
            state.sentAt = Array(repeating: 0, count: count)
            state.answeredAt = Array(repeating: 0, count: count)
            state.status = Array(repeating: 0, count: count)
            state.shownAt = Array(repeating: 0, count: count)
        }
    }

    /// Message `index` is handed to the provider client at `time`.
    func sent(_ index: Int, at time: UInt64) {
        state.withLock { $0.sentAt[index] = time }
    }

    /// The push service answered message `index` with `status` (`-1`: no answer; `error` says why).
    func answered(_ index: Int, status: Int, at time: UInt64, error: String? = nil) {
        state.withLock { state in
            state.answeredAt[index] = time
            state.status[index] = Int16(clamping: status)
            if let error, state.failures[error] != nil || state.failures.count < 10 { state.failures[error, default: 0] += 1 }
        }
    }

    /// A web app has `message` ready to show at `time`; the first time counts, later ones are duplicates.
    func shown(_ message: BenchMessage, at time: UInt64) {
        state.withLock { state in
            guard message.run == state.run, message.index >= 0, message.index < state.shownAt.count else {
                state.strays += 1
                return
            }
            if state.shownAt[message.index] != 0 {
                state.duplicates += 1
            } else {
                state.shownAt[message.index] = time
            }
        }
    }

    /// A web app received a message it would not show (it did not decrypt or parse).
    func notShown(_ failure: BenchMessage.Failure) {
        state.withLock { state in
            if state.notShown[failure.reason] != nil || state.notShown.count < 10 { state.notShown[failure.reason, default: 0] += 1 }
        }
    }

    /// Accepted (2xx) messages no web app has shown yet.
    var unshown: Int {
        state.withLock { state in
            state.status.indices.reduce(0) { count, index in
                count + ((200..<300).contains(Int(state.status[index])) && state.shownAt[index] == 0 ? 1 : 0)
            }
        }
    }

    /// The run's figures: counts, provider request → shown, and provider request → answer.
    func figures() -> ShownFigures {
        state.withLock { state in
            var figures = ShownFigures()
            var shown: [UInt64] = []
            var answers: [UInt64] = []
            for index in state.sentAt.indices where state.sentAt[index] != 0 {
                let sentAt = state.sentAt[index]
                figures.sent += 1
                let status = Int(state.status[index])
                if state.answeredAt[index] != 0 { answers.append(state.answeredAt[index] &- sentAt) }
                switch status {
                case 200..<300: figures.accepted += 1
                case -1: figures.failed += 1
                default: figures.refused[String(status), default: 0] += 1
                }
                if state.shownAt[index] != 0 {
                    shown.append(state.shownAt[index] > sentAt ? state.shownAt[index] - sentAt : 0)
                } else if (200..<300).contains(status) {
                    figures.lost += 1
                }
            }
            figures.shown = shown.count
            figures.notShown = state.notShown
            figures.duplicates = state.duplicates
            figures.strays = state.strays
            figures.failures = state.failures
            figures.shownLatency = Percentiles(nanoseconds: &shown)
            figures.answerLatency = Percentiles(nanoseconds: &answers)
            return figures
        }
    }
}

/// What a ``ShownLedger`` holds about a run, counted.
struct ShownFigures: Codable, Sendable, Hashable {
    var sent = 0
    /// Answered 2xx.
    var accepted = 0
    /// Answers outside 200–299, by status.
    var refused: [String: Int] = [:]
    /// No answer.
    var failed = 0
    /// Why requests had no answer, by error.
    var failures: [String: Int] = [:]
    /// Messages a web app had ready to show.
    var shown = 0
    /// Accepted messages no web app showed before the run ended.
    var lost = 0
    /// Messages a web app received but would not show, by why.
    var notShown: [String: Int] = [:]
    var duplicates = 0
    var strays = 0
    /// Provider request → shown on the web app.
    var shownLatency = Percentiles()
    /// Provider request → the push service's answer.
    var answerLatency = Percentiles()

    /// Whether every message sent was accepted and shown once, and nothing else arrived.
    var isClean: Bool {
        sent > 0 && accepted == sent && shown == sent && lost == 0 && notShown.isEmpty && duplicates == 0 && strays == 0
    }
}
