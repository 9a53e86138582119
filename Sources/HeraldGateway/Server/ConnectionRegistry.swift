import NIOCore
import Prometheus
import Synchronization

/// The open provider connections, so that shutdown can tell each one to say GOAWAY; their number is the
/// `herald_provider_connections` gauge.
final class ConnectionRegistry: Sendable {
    private let channels = Mutex<[ObjectIdentifier: any Channel]>([:])
    private let gauge: Gauge

    init(gauge: Gauge) {
        self.gauge = gauge
    }

    func add(_ channel: any Channel) {
        let key = ObjectIdentifier(channel)
        channels.withLock { $0[key] = channel }
        gauge.increment()
        channel.closeFuture.whenComplete { [weak self] _ in
            guard let self, channels.withLock({ $0.removeValue(forKey: key) }) != nil else { return }
            gauge.decrement()
        }
    }

    var count: Int { channels.withLock { $0.count } }

    /// Every open connection.
    var all: [any Channel] { channels.withLock { Array($0.values) } }
}
