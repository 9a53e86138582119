import Logging
import NIOCore
import NIOHPACK
import NIOHTTP2
import NIOTLS

/// A request ready for the wire: its header block and body, when it was made, and how much answer it expects.
struct EncodedRequest: Sendable {
    var headers: HPACKHeaders
    /// `nil` for an empty payload: the HEADERS frame ends the stream.
    var body: ByteBuffer?
    var startedAt: NIODeadline
    /// The most of the answer's body kept; the rest is dropped.
    var responseBodyLimit = maximumResponseBodySize
}

/// One request on its way: what to write, and whom to answer.
struct PendingRequest: Sendable {
    var encoded: EncodedRequest
    var continuation: CheckedContinuation<APNSAnswer, any Error>
}

/// The I/O shell of a client connection: moves frames between `NIOHTTP2Handler` and the state machine.
///
/// Why no child channel per stream: requests and answers are small and alike, so a stream is a dictionary entry
/// (as in the gateway, docs/performance.md). Everything runs on the channel's event loop.
final class APNSClientConnectionHandler: ChannelInboundHandler {
    typealias InboundIn = HTTP2Frame
    typealias OutboundOut = HTTP2Frame

    /// How often deadlines are checked while requests are pending; a deadline fires up to this much late.
    static let sweepInterval = TimeAmount.milliseconds(50)
    /// The inbound connection window kept open, so answers never wait for a WINDOW_UPDATE.
    private static let connectionWindowTarget = 1 << 20

    private var stateMachine = APNSClientConnectionStateMachine<PendingRequest>()
    private let ready: EventLoopPromise<Void>
    private let status: APNSClientConnectionStatus
    private let logger: Logger
    private var context: ChannelHandlerContext?
    private var sweep: Scheduled<Void>?
    private var flushScheduled = false
    private var closeWhenIdle = false
    private var isReady = false

    init(ready: EventLoopPromise<Void>, status: APNSClientConnectionStatus, logger: Logger) {
        self.ready = ready
        self.status = status
        self.logger = logger
    }

    func handlerAdded(context: ChannelHandlerContext) {
        self.context = context
        if context.channel.isActive { openConnectionWindow(context: context) }
    }

    func handlerRemoved(context: ChannelHandlerContext) {
        self.context = nil
    }

    func channelActive(context: ChannelHandlerContext) {
        openConnectionWindow(context: context)
        context.fireChannelActive()
    }

    private func openConnectionWindow(context: ChannelHandlerContext) {
        let frame = HTTP2Frame(streamID: .rootStream, payload: .windowUpdate(windowSizeIncrement: Self.connectionWindowTarget - 65_535))
        context.writeAndFlush(wrapOutboundOut(frame), promise: nil)
    }

    // MARK: Requests from `send` (already on the event loop)

    func submit(_ request: PendingRequest, id: UInt64, deadline: NIODeadline) {
        guard let context else {
            request.continuation.resume(throwing: APNSProviderClientError.requestNotSent.with("the connection is closed"))
            return
        }
        switch stateMachine.submit(request, id: id, deadline: deadline, bodyLimit: request.encoded.responseBodyLimit) {
        case .open(let streamID):
            write(request, streamID: streamID, context: context)
        case .queued:
            break
        case .reject(let error):
            request.continuation.resume(throwing: error)
            retire()
            afterStreamChange()
        }
        armSweep(context: context)
    }

    func cancel(id: UInt64) {
        guard let (request, streamID) = stateMachine.cancel(id: id) else { return }
        request.continuation.resume(throwing: CancellationError())
        if let streamID, let context { reset(streamID, context: context) }
        afterStreamChange()
    }

    /// Closes the connection once every request has its answer (for a clean shutdown).
    func closeWhenDone() {
        retire()
        afterStreamChange()
    }

    /// Takes no more requests, and closes once the last one is answered.
    private func retire() {
        status.markUnusable()
        closeWhenIdle = true
    }

    private func write(_ request: PendingRequest, streamID: HTTP2StreamID, context: ChannelHandlerContext) {
        let headers = HTTP2Frame.FramePayload.Headers(headers: request.encoded.headers, endStream: request.encoded.body == nil)
        context.write(wrapOutboundOut(HTTP2Frame(streamID: streamID, payload: .headers(headers))), promise: nil)
        if let body = request.encoded.body {
            let data = HTTP2Frame.FramePayload.Data(data: .byteBuffer(body), endStream: true)
            context.write(wrapOutboundOut(HTTP2Frame(streamID: streamID, payload: .data(data))), promise: nil)
        }
        scheduleFlush(context: context)
    }

    /// Coalesces the flushes of requests submitted together into one write to the socket.
    private func scheduleFlush(context: ChannelHandlerContext) {
        guard !flushScheduled else { return }
        flushScheduled = true
        let loopBound = NIOLoopBound(self, eventLoop: context.eventLoop)
        context.eventLoop.execute {
            let handler = loopBound.value
            handler.flushScheduled = false
            handler.context?.flush()
        }
    }

    private func reset(_ streamID: HTTP2StreamID, context: ChannelHandlerContext) {
        context.write(wrapOutboundOut(HTTP2Frame(streamID: streamID, payload: .rstStream(.cancel))), promise: nil)
        scheduleFlush(context: context)
    }

    /// Starts waiting requests that now have a stream, and closes when asked to and idle.
    private func afterStreamChange() {
        guard let context else { return }
        loop: while true {
            switch stateMachine.nextToOpen() {
            case .open(let streamID, let request):
                write(request, streamID: streamID, context: context)
            case .failWaiting(let requests, let error):
                retire()
                for request in requests { request.continuation.resume(throwing: error) }
                break loop
            case .none:
                break loop
            }
        }
        if closeWhenIdle, stateMachine.isIdle {
            closeWhenIdle = false
            let goAway = HTTP2Frame(streamID: .rootStream, payload: .goAway(lastStreamID: .rootStream, errorCode: .noError, opaqueData: nil))
            context.writeAndFlush(wrapOutboundOut(goAway), promise: nil)
            context.close(promise: nil)
        }
    }

    // MARK: Deadlines

    private func armSweep(context: ChannelHandlerContext) {
        guard sweep == nil, !stateMachine.isIdle else { return }
        let loopBound = NIOLoopBound(self, eventLoop: context.eventLoop)
        sweep = context.eventLoop.scheduleTask(in: Self.sweepInterval) {
            let handler = loopBound.value
            handler.sweep = nil
            handler.expireOverdue()
        }
    }

    private func expireOverdue() {
        guard let context else { return }
        for (request, streamID) in stateMachine.expire(now: .now()) {
            request.continuation.resume(throwing: APNSProviderClientError.responseTimeout)
            if let streamID { reset(streamID, context: context) }
        }
        afterStreamChange()
        armSweep(context: context)
    }

    // MARK: Frames and events from the server

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        let frame = unwrapInboundIn(data)
        switch frame.payload {
        case .headers(let headers):
            handle(stateMachine.receiveHeaders(headers.headers, endStream: headers.endStream, streamID: frame.streamID))
        case .data(let data):
            guard case .byteBuffer(let buffer) = data.data else { return }
            handle(stateMachine.receiveData(buffer, endStream: data.endStream, streamID: frame.streamID))
        case .rstStream(let code):
            handle(stateMachine.receiveReset(code, streamID: frame.streamID))
        case .settings(.settings(let settings)):
            let limit = settings.last(where: { $0.parameter == .maxConcurrentStreams })?.value
            if let limit { status.streamLimit = limit }
            if stateMachine.settingsReceived(maxConcurrentStreams: limit) {
                isReady = true
                ready.succeed(())
            }
            afterStreamChange()
        case .goAway(let lastStreamID, let errorCode, let opaqueData):
            retire()
            let reason = Self.goAwayReason(errorCode: errorCode, opaqueData: opaqueData)
            logger.debug("GOAWAY", metadata: ["apns.goaway.reason": "\(reason)", "apns.goaway.last_stream": "\(lastStreamID)"])
            for (request, error) in stateMachine.receiveGoAway(lastStreamID: lastStreamID, reason: reason) {
                request.continuation.resume(throwing: error)
            }
            if !isReady { ready.fail(APNSProviderClientError.connectFailed.with(reason)) }
            afterStreamChange()
        default:
            break
        }
    }

    private func handle(_ action: APNSClientConnectionStateMachine<PendingRequest>.ReceiveAction) {
        switch action {
        case .none:
            return
        case .complete(let request, var answer):
            answer.latency = Duration(NIODeadline.now() - request.encoded.startedAt)
            answer.readErrorBody()
            request.continuation.resume(returning: answer)
        case .fail(let request, let error):
            request.continuation.resume(throwing: error)
        }
        afterStreamChange()
    }

    /// "GOAWAY <code>" and, when the server said why (APNs sends `{"reason":"…"}`), the reason.
    static func goAwayReason(errorCode: HTTP2ErrorCode, opaqueData: ByteBuffer?) -> String {
        let body = opaqueData.map { APNSResponse.errorBody(Array($0.readableBytesView)) }
        if let reason = body?.reason { return "GOAWAY \(reason.rawValue)" }
        return "GOAWAY \(errorCode)"
    }

    func userInboundEventTriggered(context: ChannelHandlerContext, event: Any) {
        if let window = event as? NIOHTTP2WindowUpdatedEvent {
            keepWindowOpen(window, context: context)
        } else if case .handshakeCompleted(let negotiated)? = event as? TLSUserEvent, let negotiated, negotiated != "h2" {
            // The server chose another protocol over ALPN; HTTP/2 frames would be nonsense to it.
            ready.fail(APNSProviderClientError.connectFailed.with("the server chose \(negotiated) over ALPN, not h2"))
            context.close(promise: nil)
        } else if let closed = event as? StreamClosedEvent, let code = closed.reason {
            // A stream NIO reset itself (a protocol error in the answer) never delivers its END_STREAM.
            handle(stateMachine.receiveReset(code, streamID: closed.streamID))
        }
        context.fireUserInboundEventTriggered(event)
    }

    private func keepWindowOpen(_ event: NIOHTTP2WindowUpdatedEvent, context: ChannelHandlerContext) {
        guard event.streamID == .rootStream, let inbound = event.inboundWindowSize, inbound < Self.connectionWindowTarget / 2 else { return }
        let frame = HTTP2Frame(streamID: .rootStream, payload: .windowUpdate(windowSizeIncrement: Self.connectionWindowTarget - inbound))
        context.write(wrapOutboundOut(frame), promise: nil)
        scheduleFlush(context: context)
    }

    func channelInactive(context: ChannelHandlerContext) {
        status.markUnusable()
        sweep?.cancel()
        sweep = nil
        let reason = "the connection closed"
        ready.fail(APNSProviderClientError.connectFailed.with("the server closed the connection before its HTTP/2 SETTINGS"))
        for (request, error) in stateMachine.connectionClosed(reason: reason) {
            request.continuation.resume(throwing: error)
        }
        context.fireChannelInactive()
    }

    func errorCaught(context: ChannelHandlerContext, error: any Error) {
        if let streamError = error as? NIOHTTP2Errors.StreamError {
            let error = APNSProviderClientError.streamReset.with("\(streamError.baseError)")
            handle(stateMachine.streamFailed(streamError.streamID, error: error))
            return
        }
        logger.debug("Connection error", metadata: ["apns.error": "\(error)"])
        ready.fail(APNSProviderClientError.connectFailed.with(APNSClientConnection.describe(error)))
        context.close(promise: nil)
    }
}
