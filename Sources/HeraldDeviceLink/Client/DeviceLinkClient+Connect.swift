import Logging
import NIOCore
import NIOHTTP1
import NIOPosix
import NIOWebSocket

extension DeviceLinkClient {
    /// Opens a WebSocket to `ws://host:port/device-link`; the next step is ``hello(_:)``.
    ///
    /// - Parameters:
    ///   - eventLoopGroup: Where the connection runs; many clients can share one group.
    ///   - logger: Where the client logs (at debug, or warning for frames it has to drop).
    /// - Throws: a connection error, ``DeviceLinkClientError/upgradeRefused`` or ``DeviceLinkClientError/timedOut``.
    public static func connect(
        configuration: Configuration,
        eventLoopGroup: any EventLoopGroup = MultiThreadedEventLoopGroup.singleton,
        logger: Logger = Logger(label: "herald.device-link.client")
    ) async throws -> DeviceLinkClient {
        let eventLoop = eventLoopGroup.next()
        let (messages, continuation) = AsyncStream.makeStream(of: DeviceLinkServerMessage.self)
        let closed = eventLoop.makePromise(of: DeviceLinkClosure.self)
        let upgraded = eventLoop.makePromise(of: NIOLoopBound<DeviceLinkClientHandler>.self)
        let bootstrap = ClientBootstrap(group: eventLoop)
            .connectTimeout(configuration.connectTimeout)
            .channelOption(.tcpOption(.tcp_nodelay), value: 1)
            .channelInitializer { channel in
                channel.eventLoop.makeCompletedFuture {
                    let handler = DeviceLinkClientHandler(
                        messages: continuation,
                        closed: closed,
                        configuration: configuration,
                        logger: logger
                    )
                    try configurePipeline(channel, configuration: configuration, handler: handler, upgraded: upgraded)
                }
            }
        let channel: any Channel
        do {
            channel = try await bootstrap.connect(host: configuration.host, port: configuration.port).get()
        } catch {
            upgraded.fail(error)
            finish(closed: closed, continuation: continuation)
            throw error
        }
        let deadline = eventLoop.scheduleTask(in: configuration.connectTimeout) {
            upgraded.fail(DeviceLinkClientError.timedOut.with(detail: "WebSocket upgrade"))
        }
        do {
            let handler = try await upgraded.futureResult.get()
            deadline.cancel()
            return DeviceLinkClient(channel: channel, handler: handler, messages: messages, closed: closed.futureResult)
        } catch {
            deadline.cancel()
            try? await channel.close()
            // The handler never joined the pipeline, so it cannot report the close itself.
            finish(closed: closed, continuation: continuation)
            throw error
        }
    }

    private static func finish(closed: EventLoopPromise<DeviceLinkClosure>, continuation: AsyncStream<DeviceLinkServerMessage>.Continuation) {
        continuation.finish()
        closed.succeed(DeviceLinkClosure(code: nil, reason: nil))
    }

    private static func configurePipeline(
        _ channel: any Channel,
        configuration: Configuration,
        handler: DeviceLinkClientHandler,
        upgraded: EventLoopPromise<NIOLoopBound<DeviceLinkClientHandler>>
    ) throws {
        let boundHandler = NIOLoopBound(handler, eventLoop: channel.eventLoop)
        let request = UpgradeRequestHandler(configuration: configuration, upgraded: upgraded)
        let boundRequest = NIOLoopBound(request, eventLoop: channel.eventLoop)
        // The frame limit is the message limit: the server never fragments.
        let upgrader = NIOWebSocketClientUpgrader(maxFrameSize: configuration.maximumMessageSize) { channel, _ in
            channel.eventLoop.makeCompletedFuture {
                try channel.pipeline.syncOperations.addHandler(boundHandler.value)
                upgraded.succeed(boundHandler)
            }
        }
        let upgrade: NIOHTTPClientUpgradeConfiguration = (
            upgraders: [upgrader],
            completionHandler: { context in
                context.pipeline.syncOperations.removeHandler(boundRequest.value, promise: nil)
            }
        )
        try channel.pipeline.syncOperations.addHTTPClientHandlers(withClientUpgrade: upgrade)
        try channel.pipeline.syncOperations.addHandler(request)
    }
}

/// Sends the upgrade request, and fails the connection attempt when the server answers it with anything but `101`.
private final class UpgradeRequestHandler: ChannelInboundHandler, RemovableChannelHandler {
    typealias InboundIn = HTTPClientResponsePart
    typealias OutboundOut = HTTPClientRequestPart

    private let configuration: DeviceLinkClient.Configuration
    private let upgraded: EventLoopPromise<NIOLoopBound<DeviceLinkClientHandler>>

    init(configuration: DeviceLinkClient.Configuration, upgraded: EventLoopPromise<NIOLoopBound<DeviceLinkClientHandler>>) {
        self.configuration = configuration
        self.upgraded = upgraded
    }

    func channelActive(context: ChannelHandlerContext) {
        var headers = HTTPHeaders()
        headers.add(name: "host", value: "\(configuration.host):\(configuration.port)")
        headers.add(name: "content-length", value: "0")
        let head = HTTPRequestHead(version: .http1_1, method: .GET, uri: configuration.path, headers: headers)
        context.write(wrapOutboundOut(.head(head)), promise: nil)
        context.writeAndFlush(wrapOutboundOut(.end(nil)), promise: nil)
        context.fireChannelActive()
    }

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        if case .head(let response) = unwrapInboundIn(data) {
            upgraded.fail(DeviceLinkClientError.upgradeRefused.with(detail: "HTTP \(response.status.code) for \(configuration.path)"))
            context.close(promise: nil)
        }
    }

    func errorCaught(context: ChannelHandlerContext, error: any Error) {
        upgraded.fail(error)
        context.close(promise: nil)
    }

    func channelInactive(context: ChannelHandlerContext) {
        upgraded.fail(DeviceLinkClientError.connectionClosed)
        context.fireChannelInactive()
    }
}
