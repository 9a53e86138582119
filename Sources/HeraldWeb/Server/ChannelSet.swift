import NIOCore
import Synchronization

/// The open connections of a server, so that shutdown can tell each one to close.
final class ChannelSet: Sendable {
    private let channels = Mutex<[ObjectIdentifier: any Channel]>([:])

    func add(_ channel: any Channel) {
        let key = ObjectIdentifier(channel)
        channels.withLock { $0[key] = channel }
        channel.closeFuture.whenComplete { [weak self] _ in
            self?.channels.withLock { _ = $0.removeValue(forKey: key) }
        }
    }

    /// The number of open connections.
    var count: Int { channels.withLock { $0.count } }

    /// Every open connection.
    var all: [any Channel] { channels.withLock { Array($0.values) } }
}
