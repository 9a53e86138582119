import Foundation
import Synchronization

/// The clock every timing rule of the device runtime reads: triggers, the service-extension
/// budget, the background-fetch budget and the background-push budget.
///
/// Production code uses ``SystemNotificationClock``; tests use ``ManualNotificationClock`` and
/// advance it, so no test ever sleeps.
public protocol NotificationClock: Sendable {
    /// The current date.
    var now: Date { get }
    /// Suspends until `deadline` (or returns at once if it has passed). Throws
    /// `CancellationError` when the task is cancelled.
    func sleep(until deadline: Date) async throws
}

/// The wall clock.
public struct SystemNotificationClock: NotificationClock {
    /// Creates the wall clock.
    public init() {}

    /// `Date()`.
    public var now: Date { Date() }

    /// Sleeps with `Task.sleep`.
    public func sleep(until deadline: Date) async throws {
        let seconds = deadline.timeIntervalSinceNow
        if seconds > 0 {
            try await Task.sleep(for: .seconds(seconds))
        }
    }
}

/// A clock that only moves when a test calls ``advance(by:)``.
///
/// Sleepers whose deadline is reached are resumed by `advance`. ``waitForSleepers(count:)`` lets
/// a test wait, without sleeping, until the code under test has started waiting on the clock.
public final class ManualNotificationClock: NotificationClock {
    private struct Sleeper {
        let deadline: Date
        let continuation: CheckedContinuation<Void, any Error>
    }

    private struct Watcher {
        let count: Int
        let continuation: CheckedContinuation<Void, Never>
    }

    private struct State {
        var now: Date
        var sleepers: [UInt64: Sleeper] = [:]
        var watchers: [Watcher] = []
        var nextID: UInt64 = 0
    }

    private let state: Mutex<State>

    /// Creates a clock that reads `start` until advanced.
    public init(start: Date = Date(timeIntervalSince1970: 1_700_000_000)) {
        state = Mutex(State(now: start))
    }

    /// The current date of this clock.
    public var now: Date { state.withLock { $0.now } }

    /// How many tasks are currently sleeping on this clock.
    public var sleeperCount: Int { state.withLock { $0.sleepers.count } }

    /// Moves the clock forward and resumes every sleeper whose deadline is reached.
    public func advance(by seconds: TimeInterval) {
        let due: [CheckedContinuation<Void, any Error>] = state.withLock { state in
            state.now = state.now.addingTimeInterval(max(0, seconds))
            let now = state.now
            let ready = state.sleepers.filter { $0.value.deadline <= now }
            for id in ready.keys { state.sleepers[id] = nil }
            return ready.values.sorted { $0.deadline < $1.deadline }.map(\.continuation)
        }
        for continuation in due { continuation.resume() }
    }

    /// Suspends until at least `count` tasks are sleeping on this clock.
    public func waitForSleepers(count: Int = 1) async {
        await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
            let ready = state.withLock { state -> Bool in
                if state.sleepers.count >= count { return true }
                state.watchers.append(Watcher(count: count, continuation: continuation))
                return false
            }
            if ready { continuation.resume() }
        }
    }

    /// Suspends until `deadline` is reached by ``advance(by:)``.
    public func sleep(until deadline: Date) async throws {
        let id = state.withLock { state -> UInt64 in
            state.nextID += 1
            return state.nextID
        }
        try await withTaskCancellationHandler {
            try await withCheckedThrowingContinuation { (continuation: CheckedContinuation<Void, any Error>) in
                let (immediate, watchers) = state.withLock { state -> (Bool, [CheckedContinuation<Void, Never>]) in
                    if deadline <= state.now || Task.isCancelled { return (true, []) }
                    state.sleepers[id] = Sleeper(deadline: deadline, continuation: continuation)
                    let count = state.sleepers.count
                    let ready = state.watchers.filter { $0.count <= count }.map(\.continuation)
                    state.watchers.removeAll { $0.count <= count }
                    return (false, ready)
                }
                for watcher in watchers { watcher.resume() }
                if immediate {
                    if Task.isCancelled {
                        continuation.resume(throwing: CancellationError())
                    } else {
                        continuation.resume()
                    }
                }
            }
        } onCancel: {
            let sleeper = state.withLock { $0.sleepers.removeValue(forKey: id) }
            sleeper?.continuation.resume(throwing: CancellationError())
        }
    }
}
