import HTTPTypes
import HummingbirdCore
import Logging
import NIOCore
import NIOHTTP1
import NIOHTTPTypes
import NIOHTTPTypesHTTP1
import NIOWebSocket

/// One connection on the web port: HTTP/1.1 for the router, or — `GET /device-link` with a WebSocket upgrade — a
/// device link (docs/device-link.md).
///
/// A device link leaves Hummingbird at the upgrade: its channel then holds NIO's WebSocket codec and a
/// ``DeviceLinkConnection``, and ``handle(value:logger:)`` returns, so an idle device costs a channel and a handler, no
/// task and no timer. Why not Hummingbird's WebSocket handler: it runs one task per connection for its whole life.
struct WebPortChannel: ServerChildChannel, HTTPChannelHandler {
    /// What the first request made of the connection.
    enum Negotiated: Sendable {
        case http(NIOAsyncChannel<HTTPRequestPart, HTTPResponsePart>)
        /// An upgrade request the link refused (another path, a foreign `Origin`), to be answered by the router; NIO's
        /// upgrade handler does not pass its head on, so it is kept here.
        case refusedUpgrade(NIOAsyncChannel<HTTPRequestPart, HTTPResponsePart>, HTTPRequestHead)
        case deviceLink
    }

    /// A connection until its first request has been read.
    struct Value: ServerChildChannelValue {
        let negotiated: EventLoopFuture<Negotiated>
        let channel: any Channel
    }

    let responder: HTTPChannelHandler.Responder
    let services: DeviceLinkServices
    let connections: ChannelSet

    func setup(channel: any Channel, logger: Logger) -> EventLoopFuture<Value> {
        let services = self.services
        let configuration = services.configuration
        return channel.eventLoop.makeCompletedFuture {
            connections.add(channel)
            // Idle devices stay connected; the kernel's keep-alive finds peers that vanished. Frames leave at once.
            try channel.syncOptions?.setOption(ChannelOptions.socketOption(.so_keepalive), value: 1)
            try channel.syncOptions?.setOption(ChannelOptions.tcpOption(.tcp_nodelay), value: 1)
            let deadline = FirstRequestDeadline(timeout: configuration.httpIdleTimeout)
            let loopBoundDeadline = NIOLoopBound(deadline, eventLoop: channel.eventLoop)
            let refused = NIOLoopBoundBox<HTTPRequestHead?>(nil, eventLoop: channel.eventLoop)
            // Until the first request is read: a head NIO cannot parse (too large, malformed) gets `400` and a close.
            let parseErrors = NIOLoopBound(HTTPServerProtocolErrorHandler(), eventLoop: channel.eventLoop)
            let upgrader = NIOTypedWebSocketServerUpgrader<Negotiated>(
                maxFrameSize: configuration.maximumFrameSize,
                enableAutomaticErrorHandling: true,
                shouldUpgrade: { channel, head in
                    let request = WebRequest(method: head.method.rawValue, target: head.uri, headers: head.headers.map { ($0.name, $0.value) })
                    // A refused upgrade goes on as a plain request: the router answers it with the refusal.
                    let allowed = request.path == WebServer.linkPath && configuration.access.refusal(of: request) == nil
                    if !allowed { refused.value = head }
                    return channel.eventLoop.makeSucceededFuture(allowed ? HTTPHeaders() : nil)
                },
                upgradePipelineHandler: { channel, head in
                    channel.eventLoop.makeCompletedFuture {
                        channel.pipeline.syncOperations.removeHandler(loopBoundDeadline.value, promise: nil)
                        channel.pipeline.syncOperations.removeHandler(parseErrors.value, promise: nil)
                        // A device's FIN ends its link (Hummingbird allows half-closed HTTP connections).
                        try channel.syncOptions?.setOption(ChannelOptions.allowRemoteHalfClosure, value: false)
                        let linkHost = WebPushEndpoints.linkHost(fromHostHeader: head.headers.first(name: "host"))
                        try channel.pipeline.syncOperations.addHandler(DeviceLinkConnection(services: services, linkHost: linkHost))
                        return .deviceLink
                    }
                }
            )
            let upgrade = NIOTypedHTTPServerUpgradeConfiguration(
                upgraders: [upgrader],
                notUpgradingCompletionHandler: { channel in
                    channel.eventLoop.makeCompletedFuture {
                        let sync = channel.pipeline.syncOperations
                        sync.removeHandler(loopBoundDeadline.value, promise: nil)
                        sync.removeHandler(parseErrors.value, promise: nil)
                        try sync.addHandler(HTTP1ToHTTPServerCodec(secure: false))
                        try sync.addHandler(
                            HTTPConnectionStateHandler(idleTimeout: .nanoseconds(configuration.httpIdleTimeout.nanoseconds), logger: logger)
                        )
                        let http = try NIOAsyncChannel<HTTPRequestPart, HTTPResponsePart>(
                            wrappingChannelSynchronously: channel,
                            configuration: .init(isOutboundHalfClosureEnabled: true)
                        )
                        return refused.value.map { .refusedUpgrade(http, $0) } ?? .http(http)
                    }
                }
            )
            var pipeline = NIOUpgradableHTTPServerPipelineConfiguration(upgradeConfiguration: upgrade)
            // Hummingbird reads one request at a time, answers parse errors and validates its own header fields.
            pipeline.enablePipelining = false
            pipeline.enableErrorHandling = false
            pipeline.enableResponseHeaderValidation = false
            try channel.pipeline.syncOperations.addHandler(deadline)
            let negotiated = try channel.pipeline.syncOperations.configureUpgradableHTTPServerPipeline(configuration: pipeline)
            try channel.pipeline.syncOperations.addHandler(parseErrors.value)
            return Value(negotiated: negotiated, channel: channel)
        }
    }

    func handle(value: Value, logger: Logger) async {
        do {
            switch try await value.negotiated.get() {
            case .http(let http): await handleHTTP(asyncChannel: http, logger: logger)
            case .refusedUpgrade(let http, let head): await answer(head, on: http, logger: logger)
            case .deviceLink: return
            }
        } catch {
            logger.debug("web port connection closed before its first request", metadata: ["web.error": "\(error)"])
        }
    }
}

extension WebPortChannel {
    /// Answers a refused upgrade request through the router, then closes the connection (the peer meant to leave HTTP).
    private func answer(_ head: HTTPRequestHead, on http: NIOAsyncChannel<HTTPRequestPart, HTTPResponsePart>, logger: Logger) async {
        do {
            try await http.executeThenClose { _, outbound in
                let request = Request(head: try HTTPRequest(head, secure: false, splitCookie: false), body: RequestBody(buffer: ByteBuffer()))
                try await responder(request, ResponseWriter(outbound: outbound), http.channel)
            }
        } catch {
            logger.debug("refused upgrade not answered", metadata: ["web.error": "\(error)"])
        }
    }
}

/// Closes a new connection that has not sent a request head within the HTTP idle time, or that is still silent when
/// the server shuts down. Removed once the first request is read: HTTP then has Hummingbird's idle limit, a device
/// link none.
final class FirstRequestDeadline: ChannelInboundHandler, RemovableChannelHandler {
    typealias InboundIn = NIOAny

    private let timeout: TimeAmount
    private var deadline: Scheduled<Void>?

    init(timeout: TimeAmount) {
        self.timeout = timeout
    }

    func handlerAdded(context: ChannelHandlerContext) {
        deadline = context.eventLoop.assumeIsolated().scheduleTask(in: timeout) { context.close(promise: nil) }
    }

    func handlerRemoved(context: ChannelHandlerContext) {
        deadline?.cancel()
        deadline = nil
    }

    func userInboundEventTriggered(context: ChannelHandlerContext, event: Any) {
        switch event {
        case is ChannelShouldQuiesceEvent, is WebPortClosing: context.close(promise: nil)
        default: context.fireUserInboundEventTriggered(event)
        }
    }
}
