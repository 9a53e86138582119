import HeraldHTTP2
import HeraldTestTiers
import NIOCore
import NIOEmbedded
import Testing

@testable import HeraldGateway

/// RFC 9113 §3.4 (the connection preface) on the provider port.
@Suite("RFC 9113 §3: starting HTTP/2", .tier(.unit))
struct RFC9113Section3Tests {
    @Test("§3.4: the server's preface is a SETTINGS frame (with the header list limit), sent before anything else")
    func serverPreface() async throws {
        let fixture = try await ProcessorFixture.make()
        let channel = EmbeddedChannel(handler: fixture.connection())
        try channel.connect(to: SocketAddress(ipAddress: "127.0.0.1", port: 1)).wait()
        var peer = HTTP2TestPeer()
        let frames = try peer.frames(from: channel)
        #expect(frames.first == .other(.settings([.init(parameter: 0x3, value: 1), .init(parameter: 0x6, value: 8000)])))
        _ = try channel.finish()
        await fixture.stop()
    }

    @Test("§3.4: a client preface not followed by SETTINGS is a connection error PROTOCOL_ERROR")
    func prefaceWithoutSettings() async throws {
        let fixture = try await ProcessorFixture.make()
        let channel = EmbeddedChannel(handler: fixture.connection())
        try channel.connect(to: SocketAddress(ipAddress: "127.0.0.1", port: 1)).wait()
        var peer = HTTP2TestPeer()
        _ = try peer.frames(from: channel)
        var bytes = ByteBuffer(bytes: HTTP2FrameReader.preface)
        bytes.writeFrame(type: 0x6, streamID: 0, payload: [0, 0, 0, 0, 0, 0, 0, 0])
        try channel.writeInbound(bytes)
        #expect(try peer.frames(from: channel) == [ConformanceConnection.goAway(.protocolError)])
        #expect(!channel.isActive)
        await fixture.stop()
    }

    @Test("§3.4: bytes that are not the client preface close the connection without a frame")
    func invalidPreface() async throws {
        let fixture = try await ProcessorFixture.make()
        let channel = EmbeddedChannel(handler: fixture.connection())
        try channel.connect(to: SocketAddress(ipAddress: "127.0.0.1", port: 1)).wait()
        var peer = HTTP2TestPeer()
        _ = try peer.frames(from: channel)
        try channel.writeInbound(ByteBuffer(string: "PRI * HTTP/2.0\r\n\r\nXX\r\n\r\n"))
        #expect(try peer.frames(from: channel).isEmpty)
        #expect(!channel.isActive)
        await fixture.stop()
    }
}
