import HeraldCore
import HeraldDelivery
import HeraldStore
import Hummingbird
import HummingbirdCore
import Logging
import NIOCore
import NIOPosix
import Prometheus
import ServiceLifecycle
import Synchronization

/// The web port: one Hummingbird application serving the ``WebRouter`` (the web console and its API, the inspection
/// API, metrics, health), with devices' WebSocket (`GET /device-link`, docs/device-link.md) mounted beside the router.
///
/// Run it in a `ServiceGroup`. Device links' store requests run as child tasks of ``run()``; an idle device costs a
/// channel and a handler, nothing more. On graceful shutdown it stops listening, sends each device a close frame (1001
/// going away) — the engine hears `sessionClosed` for each and keeps what they did not acknowledge — answers the
/// console's long polls, lets HTTP requests in flight finish, closes what is left after the grace period, then stops.
public actor WebServer: Service {
    private enum State {
        case idle
        case running
        case stopped
    }

    /// The WebSocket path.
    public static let linkPath = "/device-link"

    let configuration: WebConfiguration
    let services: DeviceLinkServices
    let router: WebRouter
    let group: MultiThreadedEventLoopGroup
    let connections = ChannelSet()
    /// Whether the listener is bound and not closing: `/readyz`'s ``ReadinessCondition/webPort``.
    private let listening: ListeningFlag
    private let logger: Logger
    private var state = State.idle
    private var boundPort: Int?
    private var readyContinuations: [CheckedContinuation<Void, any Error>] = []

    /// Creates a server; nothing listens until ``run()``.
    ///
    /// - Parameters:
    ///   - registry: Devices, secrets and app tokens (the ``NotificationStore`` in `herald serve`).
    ///   - engine: Told of each session, token, acknowledgement and report; it also knows which devices are online.
    ///   - routes: Every HTTP route other than the WebSocket upgrade.
    ///   - metrics: Where the web port's request counts and durations are recorded.
    ///   - clock: The time of unregistrations.
    ///   - console: Where devices' screens, `interacted` answers and link changes go (the web console's live state).
    ///   - channels: Which connections subscribe to which broadcast channels (the gateway's broadcasts go through it).
    ///   - channelStore: Where channels and their kept broadcasts are read; the registry when it is a store.
    ///   - readiness: What `GET /readyz` waits for besides the web port itself (``HealthEndpoints``).
    public init(
        configuration: WebConfiguration,
        registry: any DeviceRegistry,
        engine: DeliveryEngine,
        channels: ChannelHub = ChannelHub(),
        channelStore: (any NotificationStore)? = nil,
        routes: WebRoutes = WebRoutes(),
        metrics: PrometheusCollectorRegistry = PrometheusCollectorRegistry(),
        clock: any WallClock = SystemWallClock(),
        console: ConsoleHub = ConsoleHub(),
        readiness: [ReadinessCondition] = [],
        logger: Logger
    ) {
        self.configuration = configuration
        self.services = DeviceLinkServices(
            registry: registry,
            store: channelStore ?? registry as? any NotificationStore,
            engine: engine,
            channels: channels,
            work: ServerWorkQueue(),
            clock: clock,
            logger: logger,
            configuration: configuration,
            console: console
        )
        let listening = ListeningFlag()
        var routes = routes
        HealthEndpoints(conditions: readiness + [ReadinessCondition(ReadinessCondition.webPort) { listening.isSet }]).addRoutes(to: &routes)
        APIIndex.addRoute(to: &routes)
        self.listening = listening
        self.router = WebRouter(routes: routes, configuration: configuration, metrics: metrics, logger: logger)
        self.group = MultiThreadedEventLoopGroup(numberOfThreads: max(1, configuration.eventLoopThreads))
        self.logger = logger
    }

    /// Where devices' screens, `interacted` answers and link changes go.
    public nonisolated var console: ConsoleHub { services.console }
    /// Which connections subscribe to which broadcast channels.
    public nonisolated var channels: ChannelHub { services.channels }
    /// Every HTTP route it serves, with the health endpoints and the API's index.
    public nonisolated var routes: WebRoutes { router.routes }

    /// The port the listener is bound to, once running.
    public var port: Int? { boundPort }
    /// The number of open connections (device links and HTTP).
    public var connectionCount: Int { connections.count }

    /// Waits until the listener is bound (or ``run()`` failed to bind it).
    public func waitUntilReady() async throws {
        switch state {
        case .running: return
        case .stopped: throw WebServerError.notRunning
        case .idle: try await withCheckedThrowingContinuation { readyContinuations.append($0) }
        }
    }

    /// Binds the web port and serves until graceful shutdown.
    public func run() async throws {
        let work = services.work
        let application = makeApplication()
        do {
            try await withThrowingDiscardingTaskGroup { group in
                group.addTask { await work.process() }
                group.addTask { [connections, configuration] in await Self.checkPeers(connections, every: configuration.peerCheckInterval) }
                try await withGracefulShutdownHandler {
                    try await application.run()
                } onGracefulShutdown: { [self] in
                    closeConnections()
                }
                work.finish()
            }
        } catch {
            work.finish()
            stopped(throwing: error)
            try? await group.shutdownGracefully()
            throw error
        }
        stopped(throwing: WebServerError.notRunning)
        try await group.shutdownGracefully()
    }

    private nonisolated func makeApplication() -> some ApplicationProtocol {
        let services = self.services
        let connections = self.connections
        var frameworkLogger = logger
        // Hummingbird's own lines (its start, each request) are for debugging; Herald logs the port itself.
        frameworkLogger.logLevel = max(logger.logLevel, .notice)
        return Application(
            responder: router.responder,
            server: HTTPServerBuilder { responder in WebPortChannel(responder: responder, services: services, connections: connections) },
            configuration: ApplicationConfiguration(
                address: .hostname(configuration.host, port: configuration.port),
                serverName: nil,
                backlog: 1024,
                reuseAddress: true
            ),
            onServerRunning: { [self] channel in await started(port: channel.localAddress?.port) },
            eventLoopGroupProvider: .shared(group),
            logger: frameworkLogger
        )
    }

    private func started(port: Int?) {
        boundPort = port
        state = .running
        listening.set(true)
        for continuation in readyContinuations { continuation.resume() }
        readyContinuations = []
        logger.info("web port listening", metadata: ["device_link.port": "\(port.map(String.init) ?? "?")"])
    }

    private func stopped(throwing error: any Error) {
        state = .stopped
        listening.set(false)
        for continuation in readyContinuations { continuation.resume(throwing: error) }
        readyContinuations = []
    }

    /// Every `interval`, asks each device link whether its peer has gone quiet (``PeerCheck``), until cancelled.
    ///
    /// One sweep for the whole server instead of a timer per connection: an idle device costs no timer.
    private static func checkPeers(_ connections: ChannelSet, every interval: TimeAmount) async {
        guard interval.nanoseconds > 0 else { return }
        while !Task.isCancelled && !Task.isShuttingDownGracefully {
            do {
                try await cancelWhenGracefulShutdown { try await Task.sleep(for: .nanoseconds(interval.nanoseconds)) }
            } catch {
                return
            }
            for channel in connections.all { channel.pipeline.fireUserInboundEventTriggered(PeerCheck()) }
        }
    }

    /// Tells every connection to close (Hummingbird tells its HTTP connections too) and closes the rest after the grace
    /// period.
    private nonisolated func closeConnections() {
        listening.set(false)
        // Long polls and interactions in flight answer now, so that the HTTP connections can close.
        services.console.close()
        let open = connections.all
        logger.info("web port shutting down", metadata: ["device_link.connections": "\(open.count)"])
        for channel in open {
            channel.pipeline.fireUserInboundEventTriggered(WebPortClosing())
        }
        group.any().scheduleTask(in: configuration.shutdownGracePeriod) {
            for channel in open { channel.close(promise: nil) }
        }
    }
}

/// Why a ``WebServer`` is not serving.
public struct WebServerError: Error, Hashable, Sendable, CustomStringConvertible {
    private enum Code: Hashable, Sendable {
        case notRunning
    }

    private let code: Code

    /// The server stopped or failed to start.
    public static let notRunning = WebServerError(code: .notRunning)

    public var description: String {
        switch code {
        case .notRunning: "the web server is not running"
        }
    }
}

/// A flag set from one task and read from any: whether a listener is bound and not closing.
final class ListeningFlag: Sendable {
    private let value = Atomic<Bool>(false)

    /// Whether the flag is set.
    var isSet: Bool { value.load(ordering: .relaxed) }

    /// Sets or clears the flag.
    func set(_ isSet: Bool) {
        value.store(isSet, ordering: .relaxed)
    }
}
