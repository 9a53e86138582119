import NIOCore
import NIOHTTP1
import NIOPosix
import NIOWebSocket

extension DeviceLinkServer {
    /// The WebSocket path.
    public static let linkPath = "/device-link"

    /// The listener: HTTP/1.1 with the WebSocket upgrade on ``linkPath``; every other request goes to the responders.
    nonisolated func bootstrap() -> ServerBootstrap {
        let services = self.services
        let connections = self.connections
        let configuration = self.configuration
        return ServerBootstrap(group: group)
            .serverChannelOption(.backlog, value: 1024)
            .serverChannelOption(.socketOption(.so_reuseaddr), value: 1)
            .childChannelOption(.socketOption(.tcp_nodelay), value: 1)
            // Idle devices stay connected; the kernel's keep-alive finds peers that vanished.
            .childChannelOption(.socketOption(.so_keepalive), value: 1)
            .childChannelInitializer { channel in
                channel.eventLoop.makeCompletedFuture {
                    connections.add(channel)
                    try Self.configureHTTP(channel, services: services, configuration: configuration)
                }
            }
    }

    private static func configureHTTP(_ channel: any Channel, services: DeviceLinkServices, configuration: Configuration) throws {
        let sync = channel.pipeline.syncOperations
        let idle = IdleStateHandler(allTimeout: configuration.httpIdleTimeout)
        let web = WebHTTPHandler(services: services)
        let httpOnly = NIOLoopBound((idle, web), eventLoop: channel.eventLoop)
        let upgrader = NIOWebSocketServerUpgrader(
            maxFrameSize: configuration.maximumFrameSize,
            automaticErrorHandling: true,
            shouldUpgrade: { channel, head in
                let request = WebRequest(method: head.method.rawValue, target: head.uri, headers: head.headers.map { ($0.name, $0.value) })
                // A refused upgrade goes on as a plain request: the web handler answers it with the refusal.
                let allowed = request.path == linkPath && configuration.access.refusal(of: request) == nil
                return channel.eventLoop.makeSucceededFuture(allowed ? HTTPHeaders() : nil)
            },
            upgradePipelineHandler: { channel, _ in
                channel.eventLoop.makeCompletedFuture {
                    try channel.pipeline.syncOperations.addHandler(DeviceLinkConnection(services: services))
                }
            }
        )
        try sync.addHandler(idle)
        try sync.configureHTTPServerPipeline(
            withServerUpgrade: (
                upgraders: [upgrader],
                completionHandler: { context in
                    // A device link has no idle limit and speaks no HTTP from here on.
                    let (idle, web) = httpOnly.value
                    context.pipeline.syncOperations.removeHandler(idle, promise: nil)
                    context.pipeline.syncOperations.removeHandler(web, promise: nil)
                }
            )
        )
        try sync.addHandler(web)
    }
}
