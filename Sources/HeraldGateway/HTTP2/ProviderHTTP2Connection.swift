import HeraldCore
import HeraldHTTP2
import NIOCore

/// Serves the provider API on one HTTP/2 connection, reading and writing the frames itself.
///
/// Why not `NIOHTTP2Handler`: the provider API has one request shape, and the generic handler's per-frame work (a
/// frame enum with `HPACKHeaders` of `String`s, a stream state machine, events) was most of the event loop's time
/// (docs/performance.md). The protocol rules live in pure parts tested on bytes: `HTTP2FrameReader` (frame layout),
/// `HPACKFieldDecoder` (header blocks), `HPACKResponseEncoder` (answers). The decisions live in
/// `ProviderRequestProcessor`. This type keeps the streams, the flow-control windows and the outbound buffer.
final class ProviderHTTP2Connection: ChannelDuplexHandler {
    typealias InboundIn = ByteBuffer
    typealias OutboundIn = ByteBuffer
    typealias OutboundOut = ByteBuffer

    /// One open stream: the request while it arrives, then the wait for its answer.
    struct Stream {
        var head = ProviderRequestHead()
        var body: [UInt8] = []
        var oversized = false
        /// The request's `content-length`, if it sent one: the DATA payloads must add up to it (RFC 9113 §8.1.1).
        var contentLength: Int?
        /// The DATA payload octets received so far (padding excluded), kept or not.
        var received = 0
        /// Whether the request was answered before its end (a body past every push type's limit): its remaining
        /// DATA is ignored, no window is granted for it, and RST_STREAM NO_ERROR follows the answer (§8.1).
        var answeredEarly = false
        /// Whether the request is still arriving (the client has not ended its side).
        var receiving = true
        /// Our receive window for this stream.
        var inboundWindow = ProviderHTTP2Connection.defaultWindowSize
        /// The peer's receive window for the DATA we send.
        var sendWindow: Int
        /// Answer bytes waiting for the peer's window; the last of them goes with END_STREAM.
        var queued: ArraySlice<UInt8>?
        /// Whether the notification is being committed: the stream counts against the limit until then, reset or not.
        var commitPending = false
        /// Whether the stream was reset (by the client, or by us) while its commit was pending: it gets no answer.
        var reset = false
    }

    let processor: ProviderRequestProcessor
    var connection: ProviderConnectionState
    let maximumConcurrentStreams: Int
    let initialConcurrentStreams: Int
    let limits: GatewayConfiguration.Limits
    var reader: HTTP2FrameReader
    var decoder = HPACKFieldDecoder(maximumTableSize: 4096)
    var streams: [UInt32: Stream] = [:]
    /// Streams whose answer waits for a WINDOW_UPDATE, oldest first.
    var blockedStreams: [UInt32] = []
    /// The highest stream the client opened (also GOAWAY's last stream id).
    var lastStreamID: UInt32 = 0
    /// The number of open streams allowed now (see `settingsAcknowledged`).
    var streamLimit: Int
    var limitRaised = false
    var settingsAcknowledged = false
    var peerInitialWindowSize = ProviderHTTP2Connection.defaultWindowSize
    var peerMaximumFrameSize = 16_384
    var connectionSendWindow = ProviderHTTP2Connection.defaultWindowSize
    var connectionInboundWindow = ProviderHTTP2Connection.defaultWindowSize
    var inFlightCommits = 0
    var started = false
    var goingAway = false
    var peerGoingAway = false
    var failed = false
    var flushScheduled = false
    /// Control frames written since the channel stopped being writable (the client is not reading).
    var pendingControlFrames = 0
    /// A read held back while the channel is not writable.
    var readPending = false
    /// Whether a fault rule's `stallMs` holds reads back.
    var stalled = false
    /// The last streams Herald reset, whose late frames are ignored rather than taken as errors (RFC 9113 §5.1).
    var recentlyReset = RecentStreams()
    var outbound: ByteBuffer
    var context: ChannelHandlerContext?

    /// The protocol's initial window (RFC 9113 §6.9.2); Herald does not change SETTINGS_INITIAL_WINDOW_SIZE.
    static let defaultWindowSize = 65_535
    /// The connection window Herald keeps open, larger than the protocol's initial 64 KiB so that many
    /// concurrent streams never wait for a WINDOW_UPDATE.
    static let connectionWindowTarget = 8 * 1024 * 1024
    /// Before the client acknowledges our SETTINGS it cannot know our limit; NIO allowed its default of 100
    /// streams until then, and so does Herald (h2load, for one, opens its streams before reading our SETTINGS).
    static let streamLimitBeforeAcknowledgement = 100

    /// - Parameters:
    ///   - initialConcurrentStreams: SETTINGS_MAX_CONCURRENT_STREAMS at the start (spec §A.1: one stream for a
    ///     token connection until a valid token, all of them for a certificate connection).
    ///   - maximumConcurrentStreams: the limit once the connection is authenticated.
    ///   - limits: the header, CONTINUATION and pending-frame bounds (docs/provider-api.md, "Limits").
    init(
        processor: ProviderRequestProcessor,
        connection: ProviderConnectionState,
        initialConcurrentStreams: Int,
        maximumConcurrentStreams: Int,
        limits: GatewayConfiguration.Limits = .init()
    ) {
        self.processor = processor
        self.connection = connection
        self.initialConcurrentStreams = initialConcurrentStreams
        self.maximumConcurrentStreams = maximumConcurrentStreams
        self.limits = limits
        self.reader = HTTP2FrameReader(limits: limits)
        self.streamLimit = max(initialConcurrentStreams, Self.streamLimitBeforeAcknowledgement)
        self.outbound = ByteBufferAllocator().buffer(capacity: 0)
    }

    /// Our SETTINGS: what `NIOHTTP2Handler` sent for Herald before (its defaults, with these two values).
    var initialSettings: [HTTP2InboundFrame.Setting] {
        [
            .init(parameter: 0x3, value: UInt32(clamping: initialConcurrentStreams)),
            .init(parameter: 0x6, value: UInt32(clamping: limits.maximumHeaderListSize)),
        ]
    }

    func handlerAdded(context: ChannelHandlerContext) {
        self.context = context
        // Small for idle connections; it grows to what one flush needs and keeps that storage.
        outbound = context.channel.allocator.buffer(capacity: 1024)
        if context.channel.isActive { start(context: context) }
    }

    func handlerRemoved(context: ChannelHandlerContext) {
        self.context = nil
    }

    func channelActive(context: ChannelHandlerContext) {
        start(context: context)
        context.fireChannelActive()
    }

    /// Sends our SETTINGS (the server preface, RFC 9113 §3.4) and opens the connection window.
    private func start(context: ChannelHandlerContext) {
        guard !started else { return }
        started = true
        outbound.writeSettingsFrame(initialSettings)
        outbound.writeWindowUpdateFrame(streamID: 0, increment: Self.connectionWindowTarget - Self.defaultWindowSize)
        connectionInboundWindow = Self.connectionWindowTarget
        flushIfNeeded(context: context)
    }

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        guard !failed else { return }
        reader.append(unwrapInboundIn(data))
        do throws(HTTP2ConnectionError) {
            while !failed, let frame = try reader.next() {
                try handle(frame, context: context)
            }
        } catch {
            fail(error, context: context)
        }
    }

    func channelReadComplete(context: ChannelHandlerContext) {
        flushIfNeeded(context: context)
        context.fireChannelReadComplete()
    }

    func channelInactive(context: ChannelHandlerContext) {
        streams.removeAll()
        blockedStreams.removeAll()
        context.fireChannelInactive()
    }

    func userInboundEventTriggered(context: ChannelHandlerContext, event: Any) {
        if let closing = event as? ProviderConnectionClosing {
            goAway(reason: closing.reason, context: context)
        } else {
            context.fireUserInboundEventTriggered(event)
        }
    }

    func errorCaught(context: ChannelHandlerContext, error: any Error) {
        context.close(promise: nil)
    }

    /// Holds reads back while the channel is not writable: a client that does not read our answers (or PING
    /// acknowledgements) is not read either, so nothing piles up on its behalf (RFC 9113 §10.5).
    func read(context: ChannelHandlerContext) {
        if stalled && !failed {
            readPending = true
        } else if context.channel.isWritable || failed {
            context.read()
        } else {
            readPending = true
        }
    }

    /// A fault rule's `stallMs`: reads nothing more for `amount`, then reads again (docs/faults.md).
    func stall(for amount: TimeAmount, context: ChannelHandlerContext) {
        stalled = true
        let loopBound = NIOLoopBound(self, eventLoop: context.eventLoop)
        context.eventLoop.scheduleTask(in: amount) {
            let handler = loopBound.value
            handler.stalled = false
            guard let context = handler.context, handler.readPending, context.channel.isWritable else { return }
            handler.readPending = false
            context.read()
        }
    }

    func channelWritabilityChanged(context: ChannelHandlerContext) {
        if context.channel.isWritable {
            pendingControlFrames = 0
            flushIfNeeded(context: context)
            if readPending && !stalled {
                readPending = false
                context.read()
            }
        }
        context.fireChannelWritabilityChanged()
    }

    /// Counts a control frame written for the client; too many while it does not read is ENHANCE_YOUR_CALM.
    ///
    /// Why: each PING or SETTINGS must be acknowledged (§6.5, §6.7), so a client that sends them without reading
    /// would make the server buffer acknowledgements without end (swift-nio-http2 caps them the same way).
    func queuedControlFrame() throws(HTTP2ConnectionError) {
        guard let context, !context.channel.isWritable else { return }
        pendingControlFrames += 1
        guard pendingControlFrames <= limits.maximumPendingControlFrames else {
            throw .limitExceeded(.pendingControlFrames(limits.maximumPendingControlFrames))
        }
    }

    /// Ends the connection after a protocol error: GOAWAY with the error code, then close (RFC 9113 §5.4.1).
    ///
    /// Each such closure is logged as a warning, within the log's rate (`ConnectionClosureLog`).
    func fail(_ error: HTTP2ConnectionError, context: ChannelHandlerContext) {
        failed = true
        let code: HTTP2ErrorCode?
        let closure: ConnectionClosureLog.Closure
        switch error {
        case .goAway(let errorCode):
            code = errorCode
            closure = .init(error: GatewayMetrics.name(of: errorCode))
        case .limitExceeded(let limit):
            code = .enhanceYourCalm
            if case .headerBlockSize = limit { processor.metrics.headerBlockTooLarge.increment() }
            closure = .init(error: GatewayMetrics.name(of: .enhanceYourCalm), limit: limit.description)
        case .badPreface:
            // Not HTTP/2 after all (the sniffer saw the preface's start): closed without a GOAWAY.
            code = nil
            closure = .init(error: "bad HTTP/2 preface")
        }
        if let code {
            processor.metrics.recordProtocolError(code)
            outbound.writeGoAwayFrame(lastStreamID: lastStreamID, errorCode: code)
            flushIfNeeded(context: context, force: true)
        }
        processor.closureLog.record(closure, peer: context.channel.remoteAddress)
        context.close(promise: nil)
    }

    /// Sends GOAWAY with a JSON reason (spec §A.1), lets in-flight streams finish, then closes.
    ///
    /// A second request to close (the connection stayed idle a whole timeout after GOAWAY, for instance with an answer
    /// waiting for a window the client never opens) closes at once, unless a commit is still to be answered.
    func goAway(reason: APNSReason, context: ChannelHandlerContext) {
        guard !failed else { return }
        guard !goingAway else {
            guard inFlightCommits == 0 else { return }
            failed = true
            flushIfNeeded(context: context, force: true)
            context.close(promise: nil)
            return
        }
        goingAway = true
        outbound.writeGoAwayFrame(lastStreamID: lastStreamID, errorCode: .noError, debugData: Array("{\"reason\":\"\(reason.rawValue)\"}".utf8))
        flushIfNeeded(context: context, force: true)
        closeIfDrained(context: context)
    }

    /// After a GOAWAY either way, closes the connection once no stream is open and no commit is pending.
    ///
    /// Flushes first: closing discards writes not yet flushed, which would lose the last answers.
    func closeIfDrained(context: ChannelHandlerContext) {
        guard goingAway || peerGoingAway, inFlightCommits == 0, streams.isEmpty, !failed else { return }
        failed = true
        flushIfNeeded(context: context, force: true)
        context.close(promise: nil)
    }

    /// Writes what `outbound` holds; while the channel is not writable it keeps it (bounded: answers by the stream
    /// limit, control frames by `queuedControlFrame`) unless `force` (a GOAWAY before closing).
    ///
    /// The bytes are taken out of `outbound` before they are written: the write may call back into this handler
    /// before it returns (the channel turning writable again fires `channelWritabilityChanged`, which flushes), and
    /// bytes still in `outbound` then would go out twice. That sent every answer of a batch twice under load, and
    /// the client's HTTP/2 stack closed the connection on the second HEADERS of a closed stream.
    func flushIfNeeded(context: ChannelHandlerContext, force: Bool = false) {
        guard outbound.readableBytes > 0, force || context.channel.isWritable else { return }
        do {
            let bytes = outbound.readSlice(length: outbound.readableBytes)!
            context.writeAndFlush(wrapOutboundOut(bytes), promise: nil)
        }
        // Once the socket took the bytes the storage is ours alone again, and is reused (when the socket kept some,
        // `clear()` gives `outbound` new storage and the kept bytes stay as they were).
        if outbound.readableBytes == 0 { outbound.clear() }
    }

    /// Coalesces the flushes of answers that complete together (a group commit completes many at once).
    func scheduleFlush(context: ChannelHandlerContext) {
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
}

/// Tells a provider connection to say GOAWAY with a reason and close once its streams finish.
struct ProviderConnectionClosing: Sendable {
    /// `Shutdown` on graceful shutdown, `IdleTimeout` when idle.
    var reason: APNSReason
}

/// The ids of the last few streams Herald reset, in a ring allocated once per connection.
///
/// Why: after sending RST_STREAM an endpoint "MUST ignore frames that it receives on closed streams" (RFC 9113 §5.1),
/// since the client may have sent them before it read the reset; any other frame on a closed stream is an error.
struct RecentStreams {
    private var ids = [UInt32](repeating: 0, count: 8)
    private var next = 0

    mutating func insert(_ streamID: UInt32) {
        ids[next] = streamID
        next = (next + 1) % ids.count
    }

    func contains(_ streamID: UInt32) -> Bool {
        ids.contains(streamID)
    }
}
