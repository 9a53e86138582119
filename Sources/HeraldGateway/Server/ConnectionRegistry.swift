import NIOCore
import Prometheus
import Synchronization

/// The open provider connections, so that shutdown can tell each one to say GOAWAY; their number is the
/// `herald_provider_connections` gauge.
final class ConnectionRegistry: Sendable {
    private struct State {
        var channels: [ObjectIdentifier: any Channel] = [:]
        /// Whether a connection was refused since the registry was last below its limit.
        var full = false
    }

    private let state = Mutex(State())
    private let gauge: Gauge

    init(gauge: Gauge) {
        self.gauge = gauge
    }

    /// Adds a connection if fewer than `limit` are open; false when the process is at its connection limit.
    ///
    /// `reachedLimit` is called once each time the registry fills up (not for every connection refused), so the log
    /// says when the cap is reached without a line per refused connection.
    func admit(_ channel: any Channel, limit: Int, reachedLimit: () -> Void) -> Bool {
        let key = ObjectIdentifier(channel)
        let (admitted, firstRefusal) = state.withLock { state -> (Bool, Bool) in
            guard state.channels.count < limit else {
                defer { state.full = true }
                return (false, !state.full)
            }
            state.full = false
            state.channels[key] = channel
            return (true, false)
        }
        if firstRefusal { reachedLimit() }
        guard admitted else { return false }
        track(channel, key: key)
        return true
    }

    func add(_ channel: any Channel) {
        let key = ObjectIdentifier(channel)
        state.withLock { $0.channels[key] = channel }
        track(channel, key: key)
    }

    private func track(_ channel: any Channel, key: ObjectIdentifier) {
        gauge.increment()
        channel.closeFuture.whenComplete { [weak self] _ in
            guard let self, state.withLock({ $0.channels.removeValue(forKey: key) }) != nil else { return }
            gauge.decrement()
        }
    }

    var count: Int { state.withLock { $0.channels.count } }

    /// Every open connection.
    var all: [any Channel] { state.withLock { Array($0.channels.values) } }
}
