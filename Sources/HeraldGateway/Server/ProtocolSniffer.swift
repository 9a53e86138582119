import NIOCore

/// Reads the first bytes of a connection and decides between HTTP/2 (the client preface) and HTTP/1.1.
///
/// Why: the cleartext port serves h2c with prior knowledge and HTTP/1.1 on one port, and the TLS port
/// accepts clients that offer no ALPN; the preface is the only reliable sign.
///
/// It also bounds the handshake: a connection that has not chosen a protocol within `handshakeTimeout` of being
/// accepted (a TLS handshake never finished, a TCP connection that never sends the preface) is closed, so that
/// idle sockets cannot hold the server's connections until the idle timeout.
final class ProtocolSniffer: ChannelInboundHandler, RemovableChannelHandler {
    typealias InboundIn = ByteBuffer
    typealias InboundOut = ByteBuffer

    /// The protocol a connection speaks.
    enum WireProtocol {
        case http2
        case http1
    }

    private static let preface = Array("PRI * HTTP/2.0\r\n\r\nSM\r\n\r\n".utf8)
    private var buffered: ByteBuffer?
    private let configure: (WireProtocol, ChannelHandlerContext) throws -> Void
    private let handshakeTimeout: TimeAmount
    private let timedOut: () -> Void
    private var timeout: Scheduled<Void>?

    /// - Parameters:
    ///   - handshakeTimeout: how long from the handler being added until the protocol is known.
    ///   - timedOut: called when a connection is closed for the timeout (for the metric).
    ///   - configure: adds the handlers for the protocol after this one, synchronously.
    init(
        handshakeTimeout: TimeAmount = .seconds(10),
        timedOut: @escaping () -> Void = {},
        configure: @escaping (WireProtocol, ChannelHandlerContext) throws -> Void
    ) {
        self.handshakeTimeout = handshakeTimeout
        self.timedOut = timedOut
        self.configure = configure
    }

    func handlerAdded(context: ChannelHandlerContext) {
        let loopBound = NIOLoopBound((self, context), eventLoop: context.eventLoop)
        timeout = context.eventLoop.scheduleTask(in: handshakeTimeout) {
            let (handler, context) = loopBound.value
            handler.timeout = nil
            handler.timedOut()
            context.close(promise: nil)
        }
    }

    func handlerRemoved(context: ChannelHandlerContext) {
        timeout?.cancel()
        timeout = nil
    }

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        var incoming = unwrapInboundIn(data)
        if var buffered {
            buffered.writeBuffer(&incoming)
            self.buffered = buffered
        } else {
            buffered = incoming
        }
        guard let bytes = buffered else { return }
        let count = min(bytes.readableBytes, Self.preface.count)
        let prefix = bytes.getBytes(at: bytes.readerIndex, length: count) ?? []
        let matchesSoFar = prefix.elementsEqual(Self.preface.prefix(count))
        if matchesSoFar, count < Self.preface.count { return }
        let wire: WireProtocol = matchesSoFar ? .http2 : .http1
        do {
            try configure(wire, context)
        } catch {
            context.close(promise: nil)
            return
        }
        buffered = nil
        timeout?.cancel()
        timeout = nil
        context.fireChannelRead(wrapInboundOut(bytes))
        context.pipeline.syncOperations.removeHandler(context: context, promise: nil)
    }

    /// A connection told to close (shutdown, idle) before it chose a protocol has nothing to finish: close it now.
    func userInboundEventTriggered(context: ChannelHandlerContext, event: Any) {
        if event is ProviderConnectionClosing {
            context.close(promise: nil)
        } else {
            context.fireUserInboundEventTriggered(event)
        }
    }
}
