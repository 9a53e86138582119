import Synchronization

/// A value that is set once and awaited once, with a deadline: the building block of the console's waits
/// (an `interacted` answer, the next event of a long poll).
final class OneShot<Value: Sendable>: Sendable {
    private enum State {
        case empty
        case waiting(CheckedContinuation<Value, Never>)
        case done(Value)
    }

    private let state = Mutex(State.empty)

    /// Sets the value unless one is set already; `true` when this call set it.
    @discardableResult
    func fulfil(_ value: Value) -> Bool {
        let waiter = state.withLock { state -> CheckedContinuation<Value, Never>?? in
            switch state {
            case .done: return .none
            case .empty:
                state = .done(value)
                return .some(nil)
            case .waiting(let continuation):
                state = .done(value)
                return .some(continuation)
            }
        }
        guard let waiter else { return false }
        waiter?.resume(returning: value)
        return true
    }

    /// The value, once set. Await it once.
    func value() async -> Value {
        await withCheckedContinuation { (continuation: CheckedContinuation<Value, Never>) in
            let ready = state.withLock { state -> Value? in
                if case .done(let value) = state { return value }
                state = .waiting(continuation)
                return nil
            }
            if let ready { continuation.resume(returning: ready) }
        }
    }

    /// The value, or `fallback` when none is set within `timeout` (or the task is cancelled).
    func value(within timeout: Duration, otherwise fallback: Value) async -> Value {
        await withTaskGroup(of: Void.self) { group in
            group.addTask {
                // Cancelled when the value comes first; a cancelled sleep returns at once and changes nothing.
                try? await Task.sleep(for: timeout)
                self.fulfil(fallback)
            }
            let result = await value()
            group.cancelAll()
            return result
        }
    }
}
