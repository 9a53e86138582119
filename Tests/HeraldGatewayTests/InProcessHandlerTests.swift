import Foundation
import HeraldCore
import HeraldStore
import NIOCore
import NIOEmbedded
import NIOHPACK
import NIOHTTP2
import Testing

@testable import HeraldGateway

/// Tier 2: the gateway's handlers on an `EmbeddedChannel`, no sockets.
@Suite("Gateway handlers in process")
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

    @Test("the HTTP/2 handler answers a rejected stream with headers and one JSON DATA frame")
    func answersRejection() async throws {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("herald-embedded-\(UUID().uuidString)")
        defer { try? FileManager.default.removeItem(at: directory) }
        let store = try SQLiteStore(configuration: .init(dataDirectory: directory.path))
        let processor = ProviderRequestProcessor(configuration: GatewayConfiguration(), services: ProviderServices(store: store))
        let handler = ProviderHTTP2Handler(
            processor: processor,
            connection: processor.makeConnectionState(clientCertificateDER: nil),
            maximumConcurrentStreams: 1000
        )
        let channel = EmbeddedChannel(handler: handler)
        // The connection window is opened as soon as the handler is active.
        try channel.connect(to: SocketAddress(ipAddress: "127.0.0.1", port: 1)).wait()
        let window = try channel.readOutbound(as: HTTP2Frame.self)
        if case .windowUpdate(let increment) = window?.payload {
            #expect(increment > 65_535)
        } else {
            Issue.record("expected a WINDOW_UPDATE, got \(String(describing: window))")
        }
        let headers = HPACKHeaders([(":method", "GET"), (":path", "/3/device/abcd"), (":scheme", "https")])
        let stream = HTTP2StreamID(1)
        try channel.writeInbound(HTTP2Frame(streamID: stream, payload: .headers(.init(headers: headers, endStream: true))))
        channel.pipeline.fireChannelReadComplete()
        let answer = try #require(try channel.readOutbound(as: HTTP2Frame.self))
        guard case .headers(let answerHeaders) = answer.payload else {
            Issue.record("expected HEADERS")
            return
        }
        #expect(answer.streamID == stream)
        #expect(answerHeaders.headers.first(name: ":status") == "405")
        #expect(answerHeaders.headers.first(name: "apns-id") != nil)
        #expect(!answerHeaders.endStream)
        let body = try #require(try channel.readOutbound(as: HTTP2Frame.self))
        guard case .data(let data) = body.payload, case .byteBuffer(let buffer) = data.data else {
            Issue.record("expected DATA")
            return
        }
        #expect(data.endStream)
        #expect(String(buffer: buffer) == #"{"reason":"MethodNotAllowed"}"#)
        _ = try channel.finish()
        await store.shutdown()
    }
}

private final class Seen {
    var value: ProtocolSniffer.WireProtocol?
}
