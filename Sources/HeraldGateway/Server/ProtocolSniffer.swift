import NIOCore

/// Reads the first bytes of a connection and decides between HTTP/2 (the client preface) and HTTP/1.1.
///
/// Why: the cleartext port serves h2c with prior knowledge and HTTP/1.1 on one port, and the TLS port
/// accepts clients that offer no ALPN; the preface is the only reliable sign.
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

    /// - Parameter configure: adds the handlers for the protocol after this one, synchronously.
    init(configure: @escaping (WireProtocol, ChannelHandlerContext) throws -> Void) {
        self.configure = configure
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
