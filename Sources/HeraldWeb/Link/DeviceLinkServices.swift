import HeraldCore
import HeraldDelivery
import HeraldStore
import Logging
import NIOCore

/// What every device-link connection of one server shares: one reference per connection
/// instead of one per service, because a server holds thousands of idle connections.
final class DeviceLinkServices: Sendable {
    let registry: any DeviceRegistry
    /// Where channels and their kept broadcasts are read.
    let store: (any NotificationStore)?
    let engine: DeliveryEngine
    let channels: ChannelHub
    let work: ServerWorkQueue
    let clock: any WallClock
    let logger: Logger
    let configuration: WebConfiguration
    let console: ConsoleHub

    init(
        registry: any DeviceRegistry,
        store: (any NotificationStore)? = nil,
        engine: DeliveryEngine,
        channels: ChannelHub = ChannelHub(),
        work: ServerWorkQueue,
        clock: any WallClock,
        logger: Logger,
        configuration: WebConfiguration,
        console: ConsoleHub
    ) {
        self.registry = registry
        self.store = store
        self.engine = engine
        self.channels = channels
        self.work = work
        self.clock = clock
        self.logger = logger
        self.configuration = configuration
        self.console = console
    }
}

/// Sent down every open connection's pipeline when the server shuts down.
struct WebPortClosing: Sendable {}

/// Sent down every open connection's pipeline every ``WebConfiguration/peerCheckInterval``: a device
/// link that heard nothing from its peer for ``WebConfiguration/peerTimeout`` closes, otherwise it pings.
struct PeerCheck: Sendable {}
