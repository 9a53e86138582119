import HeraldCore
import NIOCore
import NIOHPACK
import NIOHTTP2

/// Serves the provider API on one HTTP/2 connection, reading frames straight from `NIOHTTP2Handler`.
///
/// Why no child channel per stream: requests are small and shaped alike, so per-stream state is a
/// dictionary entry (see docs/performance.md). The decisions live in `ProviderRequestProcessor`; this
/// type only moves frames, keeps flow-control windows open, and writes answers.
final class ProviderHTTP2Handler: ChannelInboundHandler {
    typealias InboundIn = HTTP2Frame
    typealias OutboundOut = HTTP2Frame

    private struct PendingStream {
        var head = ProviderRequestHead()
        var body: [UInt8] = []
        var oversized = false
    }

    private let processor: ProviderRequestProcessor
    private var connection: ProviderConnectionState
    private let maximumConcurrentStreams: Int
    private var streams: [HTTP2StreamID: PendingStream] = [:]
    private var inFlightCommits = 0
    private var lastStreamID = HTTP2StreamID.rootStream
    private var goingAway = false
    private var needsFlush = false
    private var flushScheduled = false
    private var context: ChannelHandlerContext?

    /// The connection window Herald keeps open, larger than the protocol's initial 64 KiB so that many
    /// concurrent streams never wait for a WINDOW_UPDATE.
    private static let connectionWindowTarget = 8 * 1024 * 1024

    init(processor: ProviderRequestProcessor, connection: ProviderConnectionState, maximumConcurrentStreams: Int) {
        self.processor = processor
        self.connection = connection
        self.maximumConcurrentStreams = maximumConcurrentStreams
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
        let increment = Self.connectionWindowTarget - 65_535
        context.writeAndFlush(
            wrapOutboundOut(HTTP2Frame(streamID: .rootStream, payload: .windowUpdate(windowSizeIncrement: increment))),
            promise: nil
        )
    }

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        let frame = unwrapInboundIn(data)
        switch frame.payload {
        case .headers(let headers):
            receiveHeaders(headers, streamID: frame.streamID, context: context)
        case .data(let data):
            receiveData(data, streamID: frame.streamID, context: context)
        case .rstStream:
            streams.removeValue(forKey: frame.streamID)
            closeIfDrained(context: context)
        default:
            break
        }
    }

    func channelReadComplete(context: ChannelHandlerContext) {
        flushIfNeeded(context: context)
        context.fireChannelReadComplete()
    }

    private func flushIfNeeded(context: ChannelHandlerContext) {
        if needsFlush {
            needsFlush = false
            context.flush()
        }
    }

    func userInboundEventTriggered(context: ChannelHandlerContext, event: Any) {
        if let window = event as? NIOHTTP2WindowUpdatedEvent {
            keepWindowOpen(window, context: context)
        } else if let closing = event as? ProviderConnectionClosing {
            goAway(reason: closing.reason, context: context)
        } else {
            context.fireUserInboundEventTriggered(event)
        }
    }

    private func keepWindowOpen(_ event: NIOHTTP2WindowUpdatedEvent, context: ChannelHandlerContext) {
        guard let inbound = event.inboundWindowSize else { return }
        if event.streamID == .rootStream {
            if inbound < Self.connectionWindowTarget / 2 {
                let frame = HTTP2Frame(streamID: .rootStream, payload: .windowUpdate(windowSizeIncrement: Self.connectionWindowTarget - inbound))
                context.write(wrapOutboundOut(frame), promise: nil)
                needsFlush = true
            }
        } else if inbound < 32_768, streams[event.streamID] != nil {
            let frame = HTTP2Frame(streamID: event.streamID, payload: .windowUpdate(windowSizeIncrement: 65_535 - inbound))
            context.write(wrapOutboundOut(frame), promise: nil)
            needsFlush = true
        }
    }

    private func receiveHeaders(_ payload: HTTP2Frame.FramePayload.Headers, streamID: HTTP2StreamID, context: ChannelHandlerContext) {
        if let pending = streams[streamID] {
            // Trailers: nothing in them matters to APNs; the request ends here.
            if payload.endStream {
                streams.removeValue(forKey: streamID)
                complete(pending, streamID: streamID, context: context)
            }
            return
        }
        if streamID > lastStreamID { lastStreamID = streamID }
        var pending = PendingStream()
        for (name, value, _) in payload.headers {
            pending.head.add(name: name, value: value)
        }
        if payload.endStream {
            complete(pending, streamID: streamID, context: context)
        } else {
            streams[streamID] = pending
        }
    }

    private func receiveData(_ payload: HTTP2Frame.FramePayload.Data, streamID: HTTP2StreamID, context: ChannelHandlerContext) {
        guard var pending = streams[streamID] else { return }
        if case .byteBuffer(let buffer) = payload.data, !pending.oversized {
            if pending.body.count + buffer.readableBytes > ProviderRequestProcessor.bodyLimit {
                pending.oversized = true
                pending.body = []
            } else {
                pending.body.append(contentsOf: buffer.readableBytesView)
            }
        }
        if payload.endStream {
            streams.removeValue(forKey: streamID)
            complete(pending, streamID: streamID, context: context)
        } else {
            streams[streamID] = pending
        }
    }

    private func complete(_ pending: PendingStream, streamID: HTTP2StreamID, context: ChannelHandlerContext) {
        let decision = processor.process(
            head: pending.head,
            body: pending.body,
            bodyTooLarge: pending.oversized,
            connection: &connection
        )
        if connection.takeStreamLimitRaise() {
            let settings = HTTP2Frame(
                streamID: .rootStream,
                payload: .settings(.settings([HTTP2Setting(parameter: .maxConcurrentStreams, value: maximumConcurrentStreams)]))
            )
            context.write(wrapOutboundOut(settings), promise: nil)
        }
        switch decision {
        case .respond(let response):
            write(response, streamID: streamID, context: context)
            closeIfDrained(context: context)
        case .commit(let notification, let response, let startedAt):
            inFlightCommits += 1
            let loopBound = NIOLoopBound(self, eventLoop: context.eventLoop)
            let eventLoop = context.eventLoop
            processor.commit(notification, startedAt: startedAt) { result in
                eventLoop.execute {
                    loopBound.value.committed(result, response: response, streamID: streamID)
                }
            }
        }
    }

    private func committed(_ result: Result<Void, any Error>, response: ProviderResponse, streamID: HTTP2StreamID) {
        inFlightCommits -= 1
        guard let context else { return }
        switch result {
        case .success:
            write(response, streamID: streamID, context: context)
        case .failure:
            write(.failure(.internalServerError, apnsID: response.apnsID), streamID: streamID, context: context)
        }
        scheduleFlush(context: context)
        closeIfDrained(context: context)
    }

    /// Coalesces the flushes of answers that complete together (a group commit completes many at once).
    private func scheduleFlush(context: ChannelHandlerContext) {
        guard !flushScheduled else { return }
        flushScheduled = true
        let loopBound = NIOLoopBound(self, eventLoop: context.eventLoop)
        context.eventLoop.execute {
            let handler = loopBound.value
            handler.flushScheduled = false
            guard let context = handler.context else { return }
            handler.flushIfNeeded(context: context)
        }
    }

    private func write(_ response: ProviderResponse, streamID: HTTP2StreamID, context: ChannelHandlerContext) {
        var headers = HPACKHeaders()
        headers.reserveCapacity(4)
        headers.add(name: ":status", value: response.statusText)
        headers.add(name: "apns-id", value: response.apnsID)
        if let uniqueID = response.uniqueID { headers.add(name: "apns-unique-id", value: uniqueID) }
        if let body = response.body {
            headers.add(name: "content-type", value: "application/json")
            context.write(wrapOutboundOut(HTTP2Frame(streamID: streamID, payload: .headers(.init(headers: headers)))), promise: nil)
            let buffer = context.channel.allocator.buffer(bytes: body)
            context.write(
                wrapOutboundOut(HTTP2Frame(streamID: streamID, payload: .data(.init(data: .byteBuffer(buffer), endStream: true)))),
                promise: nil
            )
        } else {
            context.write(wrapOutboundOut(HTTP2Frame(streamID: streamID, payload: .headers(.init(headers: headers, endStream: true)))), promise: nil)
        }
        needsFlush = true
    }

    /// Sends GOAWAY with a JSON reason (spec §A.1), lets in-flight streams finish, then closes.
    private func goAway(reason: APNSReason, context: ChannelHandlerContext) {
        guard !goingAway else { return }
        goingAway = true
        let body = context.channel.allocator.buffer(string: "{\"reason\":\"\(reason.rawValue)\"}")
        let frame = HTTP2Frame(streamID: .rootStream, payload: .goAway(lastStreamID: lastStreamID, errorCode: .noError, opaqueData: body))
        context.writeAndFlush(wrapOutboundOut(frame), promise: nil)
        closeIfDrained(context: context)
    }

    /// After GOAWAY, closes the connection once no stream is open and no commit is pending.
    ///
    /// Flushes first: closing discards writes not yet flushed, which would lose the last answers.
    private func closeIfDrained(context: ChannelHandlerContext) {
        guard goingAway, inFlightCommits == 0, streams.isEmpty else { return }
        flushIfNeeded(context: context)
        context.close(promise: nil)
    }

    func errorCaught(context: ChannelHandlerContext, error: any Error) {
        context.close(promise: nil)
    }
}

/// Tells a provider connection to say GOAWAY with a reason and close once its streams finish.
struct ProviderConnectionClosing: Sendable {
    /// `Shutdown` on graceful shutdown, `IdleTimeout` when idle.
    var reason: APNSReason
}
