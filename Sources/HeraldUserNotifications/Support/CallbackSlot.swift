import Foundation
import Synchronization

/// A one-shot mailbox for a completion handler's value: the first call wins, later calls are
/// ignored. The runtime waits on it with a deadline on its clock.
final class CallbackSlot<Value: Sendable>: Sendable {
    private struct State {
        var value: Value?
        var waiter: CheckedContinuation<Value?, Never>?
    }

    private let state = Mutex(State())

    /// Delivers the value; returns false if a value was already delivered.
    @discardableResult
    func fulfil(_ value: Value) -> Bool {
        let (accepted, waiter) = state.withLock { state -> (Bool, CheckedContinuation<Value?, Never>?) in
            guard state.value == nil else { return (false, nil) }
            state.value = value
            let waiter = state.waiter
            state.waiter = nil
            return (true, waiter)
        }
        waiter?.resume(returning: value)
        return accepted
    }

    /// The value, if delivered.
    var value: Value? { state.withLock { $0.value } }

    private func wait() async -> Value? {
        await withTaskCancellationHandler {
            await withCheckedContinuation { (continuation: CheckedContinuation<Value?, Never>) in
                let ready = state.withLock { state -> Value?? in
                    if let value = state.value { return .some(value) }
                    if Task.isCancelled { return .some(nil) }
                    state.waiter = continuation
                    return nil
                }
                if let ready { continuation.resume(returning: ready) }
            }
        } onCancel: {
            let waiter = state.withLock { state -> CheckedContinuation<Value?, Never>? in
                defer { state.waiter = nil }
                return state.waiter
            }
            waiter?.resume(returning: nil)
        }
    }

    /// Waits for the value until `deadline` on `clock`; `nil` if the deadline came first.
    func value(before deadline: Date, on clock: any NotificationClock) async -> Value? {
        let result = await withTaskGroup(of: Value?.self) { group in
            group.addTask { await self.wait() }
            group.addTask {
                try? await clock.sleep(until: deadline)
                return nil
            }
            let first = await group.next() ?? nil
            group.cancelAll()
            return first
        }
        return result ?? value
    }
}
