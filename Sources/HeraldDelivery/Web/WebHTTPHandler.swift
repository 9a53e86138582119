import NIOCore
import NIOHTTP1
import NIOWebSocket

/// Serves HTTP/1.1 requests on the web port through the ``WebResponder``s, one request at a time per
/// connection (`HTTPServerPipelineHandler` holds pipelined ones back).
final class WebHTTPHandler: ChannelInboundHandler, RemovableChannelHandler {
    typealias InboundIn = HTTPServerRequestPart
    typealias OutboundOut = HTTPServerResponsePart

    private let services: DeviceLinkServices
    private var head: HTTPRequestHead?
    private var body: [UInt8] = []
    private var bodyTooLarge = false
    private var inFlight = false
    private var closeWhenDone = false

    init(services: DeviceLinkServices) {
        self.services = services
    }

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        switch unwrapInboundIn(data) {
        case .head(let request):
            head = request
            body = []
            bodyTooLarge = false
        case .body(let buffer):
            guard !bodyTooLarge else { return }
            if body.count + buffer.readableBytes > services.configuration.maximumRequestBodySize {
                bodyTooLarge = true
                body = []
            } else {
                body.append(contentsOf: buffer.readableBytesView)
            }
        case .end:
            guard let head else { return }
            self.head = nil
            respond(to: head, context: context)
        }
    }

    private func respond(to head: HTTPRequestHead, context: ChannelHandlerContext) {
        let keepAlive = head.isKeepAlive
        if bodyTooLarge {
            write(
                .error(status: 413, "the request body is over \(services.configuration.maximumRequestBodySize) bytes"),
                keepAlive: false,
                context: context
            )
            return
        }
        let request = WebRequest(
            method: head.method.rawValue,
            target: head.uri,
            headers: head.headers.map { (name: $0.name, value: $0.value) },
            body: body
        )
        body = []
        let access = services.configuration.access
        if let refusal = access.refusal(of: request) ?? access.consoleLogin(request) {
            write(refusal, keepAlive: keepAlive, context: context)
            return
        }
        if request.path == DeviceLinkServer.linkPath {
            var response = WebResponse.error(status: 426, "\(DeviceLinkServer.linkPath) is a WebSocket: send an upgrade request")
            response.headers["upgrade"] = "websocket"
            write(response, keepAlive: keepAlive, context: context)
            return
        }
        inFlight = true
        let responders = services.responders
        services.work.run(on: context.eventLoop) { await Self.answer(request, responders: responders) }
            .assumeIsolated()
            .whenComplete { [self] result in
                inFlight = false
                switch result {
                case .success(let response): write(response, keepAlive: keepAlive, context: context)
                case .failure: write(.error(status: 503, "the server is shutting down"), keepAlive: false, context: context)
                }
            }
    }

    private static func answer(_ request: WebRequest, responders: [any WebResponder]) async -> WebResponse {
        for responder in responders {
            if let response = await responder.respond(to: request) { return response }
        }
        return .error(status: 404, "no resource at \(request.path)")
    }

    private func write(_ response: WebResponse, keepAlive: Bool, context: ChannelHandlerContext) {
        let close = closeWhenDone || !keepAlive
        var headers = HTTPHeaders()
        for (name, value) in response.headers.sorted(by: { $0.key < $1.key }) { headers.add(name: name, value: value) }
        headers.replaceOrAdd(name: "content-length", value: String(response.body.count))
        if close { headers.replaceOrAdd(name: "connection", value: "close") }
        let head = HTTPResponseHead(version: .http1_1, status: HTTPResponseStatus(statusCode: response.status), headers: headers)
        context.write(wrapOutboundOut(.head(head)), promise: nil)
        if !response.body.isEmpty {
            context.write(wrapOutboundOut(.body(.byteBuffer(context.channel.allocator.buffer(bytes: response.body)))), promise: nil)
        }
        let done = context.writeAndFlush(wrapOutboundOut(.end(nil)))
        if close { done.assumeIsolated().whenComplete { _ in context.close(promise: nil) } }
    }

    func userInboundEventTriggered(context: ChannelHandlerContext, event: Any) {
        switch event {
        case is WebPortClosing, is IdleStateHandler.IdleStateEvent:
            closeWhenDone = true
            if !inFlight { context.close(promise: nil) }
        default:
            context.fireUserInboundEventTriggered(event)
        }
    }

    func errorCaught(context: ChannelHandlerContext, error: any Error) {
        // A refused WebSocket upgrade (another path, a bad key) is reported here, then the request itself
        // arrives as plain HTTP and is answered; anything else ends the connection.
        if error is NIOWebSocketUpgradeError { return }
        context.close(promise: nil)
    }
}
