import HeraldCore
import HeraldStore
import Logging
import NIOCore

/// What every device-link connection and web request of one server shares: one reference per connection
/// instead of one per service, because a server holds thousands of idle connections.
final class DeviceLinkServices: Sendable {
    let registry: any DeviceRegistry
    let engine: DeliveryEngine
    let responders: [any WebResponder]
    let work: ServerWorkQueue
    let clock: any WallClock
    let logger: Logger
    let configuration: DeviceLinkServer.Configuration
    let console: ConsoleHub

    init(
        registry: any DeviceRegistry,
        engine: DeliveryEngine,
        responders: [any WebResponder],
        work: ServerWorkQueue,
        clock: any WallClock,
        logger: Logger,
        configuration: DeviceLinkServer.Configuration,
        console: ConsoleHub
    ) {
        self.registry = registry
        self.engine = engine
        self.responders = responders
        self.work = work
        self.clock = clock
        self.logger = logger
        self.configuration = configuration
        self.console = console
    }
}

/// Sent down every open connection's pipeline when the server shuts down.
struct WebPortClosing: Sendable {}

/// Sent down every open connection's pipeline every ``DeviceLinkServer/Configuration/peerCheckInterval``: a device
/// link that heard nothing from its peer for ``DeviceLinkServer/Configuration/peerTimeout`` closes, otherwise it pings.
struct PeerCheck: Sendable {}
