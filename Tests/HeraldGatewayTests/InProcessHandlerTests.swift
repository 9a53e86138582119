import HeraldTestTiers
import NIOCore
import NIOEmbedded
import Testing

@testable import HeraldGateway

/// Tier 2: the gateway's handlers on an `EmbeddedChannel`, no sockets (the HTTP/2 connection: `ProviderHTTP2ConnectionTests`).
@Suite("Gateway handlers in process", .tier(.unit))
struct InProcessHandlerTests {
    @Test("the sniffer recognises the HTTP/2 preface, even split across reads")
    func sniffsHTTP2() throws {
        let seen = Seen()
        let channel = EmbeddedChannel(handler: ProtocolSniffer { wire, _ in seen.value = wire })
        try channel.writeInbound(ByteBuffer(string: "PRI * HTTP/2.0\r\n"))
        #expect(seen.value == nil)
        try channel.writeInbound(ByteBuffer(string: "\r\nSM\r\n\r\nrest"))
        #expect(seen.value == .http2)
        let forwarded = try channel.readInbound(as: ByteBuffer.self)
        #expect(forwarded.map { String(buffer: $0) } == "PRI * HTTP/2.0\r\n\r\nSM\r\n\r\nrest")
        _ = try channel.finish()
    }

    @Test("anything else is HTTP/1.1, decided at the first differing byte")
    func sniffsHTTP1() throws {
        let seen = Seen()
        let channel = EmbeddedChannel(handler: ProtocolSniffer { wire, _ in seen.value = wire })
        try channel.writeInbound(ByteBuffer(string: "POST /3/device/ab HTTP/1.1\r\n"))
        #expect(seen.value == .http1)
        let forwarded = try channel.readInbound(as: ByteBuffer.self)
        #expect(forwarded.map { String(buffer: $0) }?.hasPrefix("POST /3/device/ab") == true)
        _ = try channel.finish()
    }
}

private final class Seen {
    var value: ProtocolSniffer.WireProtocol?
}
