import Logging
import NIOCore
import NIOWebSocket

/// The client's WebSocket end: answers pings, matches replies to requests, and hands everything else to the
/// client's message stream. Runs on the channel's event loop; the client reaches it through `NIOLoopBound`.
final class DeviceLinkClientHandler: ChannelInboundHandler {
    typealias InboundIn = WebSocketFrame
    typealias OutboundOut = WebSocketFrame

    private var assembler: WebSocketMessageAssembler
    private let messages: AsyncStream<DeviceLinkServerMessage>.Continuation
    private let closed: EventLoopPromise<DeviceLinkClosure>
    private let requestTimeout: TimeAmount
    private let logger: Logger
    private var context: ChannelHandlerContext?
    private var pendingHello: EventLoopPromise<DeviceLinkWelcome>?
    private var pendingRequests: [String: EventLoopPromise<DeviceLinkServerMessage>] = [:]
    private var pendingPings: [EventLoopPromise<Void>] = []
    private var nextRequestNumber = 1
    private var closure = DeviceLinkClosure(code: nil, reason: nil)
    private var sentClose = false

    init(
        messages: AsyncStream<DeviceLinkServerMessage>.Continuation,
        closed: EventLoopPromise<DeviceLinkClosure>,
        configuration: DeviceLinkClient.Configuration,
        logger: Logger
    ) {
        self.assembler = WebSocketMessageAssembler(maximumMessageSize: configuration.maximumMessageSize)
        self.messages = messages
        self.closed = closed
        self.requestTimeout = configuration.requestTimeout
        self.logger = logger
    }

    func handlerAdded(context: ChannelHandlerContext) {
        self.context = context
    }

    // MARK: Outbound, called by the client on the event loop

    func send(_ message: DeviceLinkClientMessage) -> EventLoopFuture<Void> {
        sendText(message.frame())
    }

    func sendText(_ bytes: [UInt8]) -> EventLoopFuture<Void> {
        guard let context, !sentClose else { return closed.futureResult.eventLoop.makeFailedFuture(DeviceLinkClientError.connectionClosed) }
        let frame = WebSocketFrame(fin: true, opcode: .text, maskKey: .random(), data: context.channel.allocator.buffer(bytes: bytes))
        return context.writeAndFlush(wrapOutboundOut(frame))
    }

    func hello(_ hello: DeviceLinkHello) -> EventLoopFuture<DeviceLinkWelcome> {
        let eventLoop = closed.futureResult.eventLoop
        guard pendingHello == nil else {
            return eventLoop.makeFailedFuture(DeviceLinkClientError.unexpectedReply.with(detail: "a hello is already waiting for its answer"))
        }
        let promise = eventLoop.makePromise(of: DeviceLinkWelcome.self)
        pendingHello = promise
        send(.hello(hello)).cascadeFailure(to: promise)
        let timeout = eventLoop.assumeIsolated().scheduleTask(in: requestTimeout) { [self] in
            pendingHello = nil
            promise.fail(DeviceLinkClientError.timedOut.with(detail: "hello"))
        }
        promise.futureResult.whenComplete { _ in timeout.cancel() }
        return promise.futureResult
    }

    /// Sends the message made for a new request id and waits for the reply carrying that id.
    func request(_ make: (String) -> DeviceLinkClientMessage) -> EventLoopFuture<DeviceLinkServerMessage> {
        let eventLoop = closed.futureResult.eventLoop
        let id = "r\(nextRequestNumber)"
        nextRequestNumber += 1
        let promise = eventLoop.makePromise(of: DeviceLinkServerMessage.self)
        pendingRequests[id] = promise
        send(make(id)).cascadeFailure(to: promise)
        let timeout = eventLoop.assumeIsolated().scheduleTask(in: requestTimeout) { [self] in
            pendingRequests[id] = nil
            promise.fail(DeviceLinkClientError.timedOut.with(detail: "request \(id)"))
        }
        promise.futureResult.assumeIsolated().whenComplete { [self] _ in
            timeout.cancel()
            pendingRequests[id] = nil
        }
        return promise.futureResult
    }

    /// Sends a ping and completes when its pong comes back.
    func ping() -> EventLoopFuture<Void> {
        let eventLoop = closed.futureResult.eventLoop
        guard let context, !sentClose else { return eventLoop.makeFailedFuture(DeviceLinkClientError.connectionClosed) }
        let promise = eventLoop.makePromise(of: Void.self)
        pendingPings.append(promise)
        let frame = WebSocketFrame(fin: true, opcode: .ping, maskKey: .random(), data: context.channel.allocator.buffer(string: "herald"))
        context.writeAndFlush(wrapOutboundOut(frame)).cascadeFailure(to: promise)
        let timeout = eventLoop.assumeIsolated().scheduleTask(in: requestTimeout) {
            promise.fail(DeviceLinkClientError.timedOut.with(detail: "ping"))
        }
        promise.futureResult.whenComplete { _ in timeout.cancel() }
        return promise.futureResult
    }

    /// Sends a close frame; the connection then closes when the server answers with its own (or at once
    /// with `closeAfterWrite`, when answering the server's).
    func close(code: WebSocketErrorCode, closeAfterWrite: Bool = false) {
        guard let context, !sentClose else { return }
        sentClose = true
        var data = context.channel.allocator.buffer(capacity: 2)
        data.write(webSocketErrorCode: code)
        let frame = WebSocketFrame(fin: true, opcode: .connectionClose, maskKey: .random(), data: data)
        context.writeAndFlush(wrapOutboundOut(frame)).assumeIsolated().whenComplete { result in
            if closeAfterWrite || (try? result.get()) == nil { context.close(promise: nil) }
        }
    }

    // MARK: Inbound

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        switch assembler.receive(unwrapInboundIn(data)) {
        case nil: break
        case .text(let buffer):
            do {
                received(try DeviceLinkServerMessage(frame: buffer.readableBytesView))
            } catch {
                logger.warning("ignoring a frame from the server", metadata: ["device_link.error": "\(error)"])
            }
        case .binary:
            logger.warning("ignoring a binary frame from the server")
        case .tooLarge(let size):
            logger.warning("dropping a message over the size limit", metadata: ["device_link.size": "\(size)"])
        case .ping(let data):
            context.writeAndFlush(wrapOutboundOut(WebSocketFrame(fin: true, opcode: .pong, maskKey: .random(), data: data)), promise: nil)
        case .pong:
            if !pendingPings.isEmpty { pendingPings.removeFirst().succeed() }
        case .close(let code, let reason):
            closure = DeviceLinkClosure(code: code.map { Int(UInt16(webSocketErrorCode: $0)) }, reason: reason)
            if sentClose {
                context.close(promise: nil)
            } else {
                // Echo the close, then end the connection (RFC 6455 §5.5.1).
                close(code: code ?? .normalClosure, closeAfterWrite: true)
            }
        case .protocolError(let message):
            logger.warning("closing a device link after a protocol error", metadata: ["device_link.error": "\(message)"])
            close(code: .protocolError, closeAfterWrite: true)
        }
    }

    private func received(_ message: DeviceLinkServerMessage) {
        switch message {
        case .welcome(let welcome):
            if let hello = pendingHello {
                pendingHello = nil
                hello.succeed(welcome)
                return
            }
        case .registered(let registration):
            if let id = registration.id, let request = pendingRequests.removeValue(forKey: id) {
                request.succeed(message)
                return
            }
        case .unregistered(let unregistration):
            if let id = unregistration.id, let request = pendingRequests.removeValue(forKey: id) {
                request.succeed(message)
                return
            }
        case .activityTokenRegistered(let reply), .activityTokenRetired(let reply):
            if let id = reply.id, let request = pendingRequests.removeValue(forKey: id) {
                request.succeed(message)
                return
            }
        case .channelSubscribed(let reply), .channelUnsubscribed(let reply):
            if let id = reply.id, let request = pendingRequests.removeValue(forKey: id) {
                request.succeed(message)
                return
            }
        case .webPushSubscribed(let reply):
            if let id = reply.id, let request = pendingRequests.removeValue(forKey: id) {
                request.succeed(message)
                return
            }
        case .webPushUnsubscribed(let reply):
            if let id = reply.id, let request = pendingRequests.removeValue(forKey: id) {
                request.succeed(message)
                return
            }
        case .error(let error):
            if let id = error.id, let request = pendingRequests.removeValue(forKey: id) {
                request.fail(error)
                return
            }
            if error.id == nil, let hello = pendingHello, Self.helloFailures.contains(error.code) {
                pendingHello = nil
                hello.fail(error)
                return
            }
        case .notification, .interact, .broadcast:
            break
        }
        messages.yield(message)
    }

    /// The errors that answer a `hello`.
    private static let helloFailures: Set<DeviceLinkErrorCode> = [
        .unauthorized, .enrolmentDisabled, .alreadyAuthenticated, .malformedFrame, .internal, .deviceOffline,
    ]

    func channelInactive(context: ChannelHandlerContext) {
        sentClose = true
        pendingHello?.fail(DeviceLinkClientError.connectionClosed)
        pendingHello = nil
        let requests = pendingRequests
        pendingRequests = [:]
        for request in requests.values { request.fail(DeviceLinkClientError.connectionClosed) }
        let pings = pendingPings
        pendingPings = []
        for ping in pings { ping.fail(DeviceLinkClientError.connectionClosed) }
        messages.finish()
        closed.succeed(closure)
        self.context = nil
        context.fireChannelInactive()
    }

    func errorCaught(context: ChannelHandlerContext, error: any Error) {
        logger.debug("device link error", metadata: ["device_link.error": "\(error)"])
        context.close(promise: nil)
    }
}
