import HeraldCore
import NIOCore
import NIOHTTP1

/// Serves the provider API over HTTP/1.1, for clients that only speak HTTP/1.1 to an `http://` URL.
///
/// The same processor decides; answers carry the same headers and JSON bodies as over HTTP/2.
final class ProviderHTTP1Handler: ChannelInboundHandler {
    typealias InboundIn = HTTPServerRequestPart
    typealias OutboundOut = HTTPServerResponsePart

    private let processor: ProviderRequestProcessor
    private var connection: ProviderConnectionState
    private var head = ProviderRequestHead()
    private var keepAlive = true
    private var body: [UInt8] = []
    private var oversized = false
    private var inFlight = false
    private var closeWhenDone = false

    init(processor: ProviderRequestProcessor, connection: ProviderConnectionState) {
        self.processor = processor
        self.connection = connection
    }

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        switch unwrapInboundIn(data) {
        case .head(let request):
            head = ProviderRequestHead()
            head.add(name: ":method", value: request.method.rawValue)
            head.add(name: ":path", value: request.uri)
            keepAlive = request.isKeepAlive
            // `host` is a transport header below (never a duplicate), but a web push's VAPID `aud` is checked against it.
            if let host = request.headers.first(name: "host") { head.add(.host, value: host) }
            for header in request.headers where !Self.transportHeaders.contains(header.name.lowercased()) {
                head.add(name: header.name.lowercased(), value: header.value)
            }
            body = []
            oversized = false
        case .body(let buffer):
            if !oversized {
                if body.count + buffer.readableBytes > ProviderRequestProcessor.bodyLimit {
                    oversized = true
                    body = []
                } else {
                    body.append(contentsOf: buffer.readableBytesView)
                }
            }
        case .end:
            finishRequest(context: context)
        }
    }

    /// Hop-by-hop and HTTP/1.1-only headers that HTTP/2 does not carry, so they never count as duplicates.
    private static let transportHeaders: Set<String> = ["host", "connection", "content-length", "transfer-encoding", "keep-alive", "expect"]

    private func finishRequest(context: ChannelHandlerContext) {
        let decision = processor.process(head: head, body: body, bodyTooLarge: oversized, connection: &connection)
        _ = connection.takeStreamLimitRaise()
        carryOut(decision, context: context)
    }

    private func carryOut(_ decision: ProviderDecision, context: ChannelHandlerContext) {
        switch decision {
        case .respond(let response):
            write(response, context: context)
        case .commit(let notification, let response, let startedAt, let device):
            answerLater(context: context) { done in
                processor.commit(notification, startedAt: startedAt, device: device, completion: done)
            } finish: { handler, context, result in
                switch result {
                case .success: handler.write(response, context: context)
                case .failure(let error):
                    let reason = ProviderRequestProcessor.reason(forCommitFailure: error)
                    handler.write(.failure(reason, apnsID: response.apnsID), context: context)
                }
            }
        case .perform(let work):
            answerLater(context: context, start: work) { handler, context, response in handler.write(response, context: context) }
        case .reset, .close:
            // HTTP/1.1 has no stream to reset: the connection is closed without an answer.
            context.close(promise: nil)
        case .then(let decision, .goAway):
            // The answer carries `connection: close`, and the connection closes after it.
            closeWhenDone = true
            carryOut(decision, context: context)
        case .then(let decision, .stall(let amount)):
            carryOut(decision, context: context)
            context.channel.setOption(ChannelOptions.autoRead, value: false).whenComplete { _ in }
            let loopBound = NIOLoopBound(context, eventLoop: context.eventLoop)
            context.eventLoop.scheduleTask(in: amount) {
                loopBound.value.channel.setOption(ChannelOptions.autoRead, value: true).whenComplete { _ in }
            }
        case .delayed(let delay, let later):
            let eventLoop = context.eventLoop
            answerLater(context: context) { done in
                eventLoop.scheduleTask(in: delay) { done(()) }
            } finish: { handler, context, _ in
                handler.carryOut(later, context: context)
            }
        }
    }

    /// One request at a time on HTTP/1.1: reads nothing more while `start`'s work runs (a commit, a channel's store
    /// work, a fault rule's delay), then reads again and runs `finish` on the event loop with what the work reported.
    private func answerLater<Value: Sendable>(
        context: ChannelHandlerContext,
        start: (_ done: @escaping @Sendable (Value) -> Void) -> Void,
        finish: @escaping (ProviderHTTP1Handler, ChannelHandlerContext, Value) -> Void
    ) {
        inFlight = true
        context.channel.setOption(ChannelOptions.autoRead, value: false).whenComplete { _ in }
        let loopBound = NIOLoopBound((self, context, finish), eventLoop: context.eventLoop)
        let eventLoop = context.eventLoop
        start { value in
            eventLoop.execute {
                let (handler, context, finish) = loopBound.value
                handler.inFlight = false
                context.channel.setOption(ChannelOptions.autoRead, value: true).whenComplete { _ in }
                finish(handler, context, value)
            }
        }
    }

    private func write(_ response: ProviderResponse, context: ChannelHandlerContext) {
        var headers = HTTPHeaders()
        if response.sendsAPNSID { headers.add(name: "apns-id", value: response.apnsID) }
        if let uniqueID = response.uniqueID { headers.add(name: "apns-unique-id", value: uniqueID) }
        for field in response.extraHeaders { headers.add(name: field.name.description, value: field.value) }
        let body = response.body ?? []
        if !body.isEmpty { headers.add(name: "content-type", value: "application/json") }
        headers.add(name: "content-length", value: String(body.count))
        let close = closeWhenDone || !keepAlive
        if close { headers.add(name: "connection", value: "close") }
        let status = HTTPResponseStatus(statusCode: response.status)
        context.write(wrapOutboundOut(.head(HTTPResponseHead(version: .http1_1, status: status, headers: headers))), promise: nil)
        if !body.isEmpty {
            context.write(wrapOutboundOut(.body(.byteBuffer(context.channel.allocator.buffer(bytes: body)))), promise: nil)
        }
        let done = context.writeAndFlush(wrapOutboundOut(.end(nil)))
        if close { done.assumeIsolated().whenComplete { _ in context.close(promise: nil) } }
    }

    func userInboundEventTriggered(context: ChannelHandlerContext, event: Any) {
        if event is ProviderConnectionClosing {
            closeWhenDone = true
            if !inFlight { context.close(promise: nil) }
        } else {
            context.fireUserInboundEventTriggered(event)
        }
    }

    /// A request NIO's HTTP/1.1 parser could not read (or another pipeline error): logged within the closure log's
    /// rate, then the connection is closed.
    func errorCaught(context: ChannelHandlerContext, error: any Error) {
        processor.closureLog.record(.init(error: "HTTP/1.1 \(error)"), peer: context.channel.remoteAddress)
        context.close(promise: nil)
    }
}
