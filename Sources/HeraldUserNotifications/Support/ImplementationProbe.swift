import Synchronization

/// Tells whether a protocol method with a default implementation was actually implemented by a
/// conforming type — Herald's stand-in for Objective-C's `respondsToSelector:` on optional
/// protocol methods.
///
/// Every default implementation of an "optional" method calls ``markDefault()``; the runtime
/// calls the method inside ``check(_:)`` and learns whether the default ran.
final class ImplementationProbe: Sendable {
    @TaskLocal static var active: ImplementationProbe?

    private let defaultUsed = Mutex(false)

    /// Called by default implementations.
    static func markDefault() {
        active?.defaultUsed.withLock { $0 = true }
    }

    /// Runs `body` and reports whether a real implementation (not a default) ran.
    static func check(_ body: () -> Void) -> Bool {
        let probe = ImplementationProbe()
        $active.withValue(probe) { body() }
        return !probe.defaultUsed.withLock { $0 }
    }

    /// Runs an async `body` and returns its result and whether a real implementation ran.
    static func checkAsync<T: Sendable>(_ body: () async -> T) async -> (T, implemented: Bool) {
        let probe = ImplementationProbe()
        let result = await $active.withValue(probe) { await body() }
        return (result, !probe.defaultUsed.withLock { $0 })
    }
}
