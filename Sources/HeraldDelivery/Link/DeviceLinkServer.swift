import HeraldCore
import HeraldStore
import Logging
import NIOCore
import NIOPosix
import ServiceLifecycle

/// The web port: devices' WebSocket (`GET /device-link`, docs/device-link.md) and HTTP for the
/// ``WebResponder``s (the web console and its API, the inspection API, metrics).
///
/// Run it in a `ServiceGroup`. Store requests and HTTP responders run as child tasks of ``run()``; an
/// idle device costs a channel and a handler, nothing more. On graceful shutdown it stops listening, sends
/// each device a close frame (1001 going away) — the engine hears `sessionClosed` for each and keeps what
/// they did not acknowledge — lets HTTP requests in flight finish, then stops.
public actor DeviceLinkServer: Service {
    private enum State {
        case idle
        case running(listener: any Channel)
        case stopped
    }

    let configuration: Configuration
    let services: DeviceLinkServices
    let group: MultiThreadedEventLoopGroup
    let connections = ChannelSet()
    private let logger: Logger
    private var state = State.idle
    private var boundPort: Int?
    private var readyContinuations: [CheckedContinuation<Void, any Error>] = []

    /// Creates a server; nothing listens until ``run()``.
    ///
    /// - Parameters:
    ///   - registry: Devices, secrets and app tokens (the ``NotificationStore`` in `herald serve`).
    ///   - engine: Told of each session, token, acknowledgement and report; it also knows which devices are online.
    ///   - responders: Asked in order for every HTTP request other than the WebSocket upgrade.
    ///   - clock: The time of unregistrations.
    ///   - console: Where devices' screens, `interacted` answers and link changes go (the web console's live state).
    public init(
        configuration: Configuration,
        registry: any DeviceRegistry,
        engine: DeliveryEngine,
        responders: [any WebResponder] = [],
        clock: any WallClock = SystemWallClock(),
        console: ConsoleHub = ConsoleHub(),
        logger: Logger
    ) {
        self.configuration = configuration
        self.services = DeviceLinkServices(
            registry: registry,
            engine: engine,
            responders: responders,
            work: ServerWorkQueue(),
            clock: clock,
            logger: logger,
            configuration: configuration,
            console: console
        )
        self.group = MultiThreadedEventLoopGroup(numberOfThreads: max(1, configuration.eventLoopThreads))
        self.logger = logger
    }

    /// Where devices' screens, `interacted` answers and link changes go.
    public nonisolated var console: ConsoleHub { services.console }

    /// The port the listener is bound to, once running.
    public var port: Int? { boundPort }
    /// The number of open connections (device links and HTTP).
    public var connectionCount: Int { connections.count }

    /// Waits until the listener is bound (or ``run()`` failed to bind it).
    public func waitUntilReady() async throws {
        switch state {
        case .running: return
        case .stopped: throw DeviceLinkServerError.notRunning
        case .idle: try await withCheckedThrowingContinuation { readyContinuations.append($0) }
        }
    }

    /// Binds the web port and serves until graceful shutdown.
    public func run() async throws {
        let listener: any Channel
        do {
            listener = try await bootstrap().bind(host: configuration.host, port: configuration.port).get()
        } catch {
            state = .stopped
            for continuation in readyContinuations { continuation.resume(throwing: error) }
            readyContinuations = []
            try? await group.shutdownGracefully()
            throw error
        }
        boundPort = listener.localAddress?.port
        state = .running(listener: listener)
        for continuation in readyContinuations { continuation.resume() }
        readyContinuations = []
        logger.info("web port listening", metadata: ["device_link.port": "\(boundPort.map(String.init) ?? "?")"])

        let work = services.work
        await withDiscardingTaskGroup { group in
            group.addTask { await work.process() }
            group.addTask { [connections, configuration] in await Self.checkPeers(connections, every: configuration.peerCheckInterval) }
            await withTaskCancellationOrGracefulShutdownHandler {
                await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
                    listener.closeFuture.whenComplete { _ in continuation.resume() }
                }
            } onCancelOrGracefulShutdown: {
                listener.close(promise: nil)
            }
            await drainConnections()
            work.finish()
        }
        state = .stopped
        try await group.shutdownGracefully()
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

    /// Tells every connection to close, waits for them (up to the grace period), then closes the rest.
    private func drainConnections() async {
        // Long polls and interactions in flight answer now, so that the HTTP connections can close.
        services.console.close()
        let open = connections.all
        logger.info("web port shutting down", metadata: ["device_link.connections": "\(open.count)"])
        for channel in open {
            channel.pipeline.fireUserInboundEventTriggered(WebPortClosing())
        }
        let loop = group.any()
        let forceClose = loop.scheduleTask(in: configuration.shutdownGracePeriod) {
            for channel in open { channel.close(promise: nil) }
        }
        try? await EventLoopFuture.andAllComplete(open.map(\.closeFuture), on: loop).get()
        forceClose.cancel()
    }
}

/// Why a ``DeviceLinkServer`` is not serving.
public struct DeviceLinkServerError: Error, Hashable, Sendable, CustomStringConvertible {
    private enum Code: Hashable, Sendable {
        case notRunning
    }

    private let code: Code

    /// The server stopped or failed to start.
    public static let notRunning = DeviceLinkServerError(code: .notRunning)

    public var description: String {
        switch code {
        case .notRunning: "the device-link server is not running"
        }
    }
}
