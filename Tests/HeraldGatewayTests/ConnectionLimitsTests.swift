import HeraldHTTP2
import HeraldTestSupport
import HeraldTestTiers
import NIOCore
import NIOEmbedded
import NIOPosix
import Testing

@testable import HeraldGateway

/// The handshake timeout and the connection cap: in process on an injected clock, then live on port 0.
@Suite("Provider connection limits", .tier(.inProcess))
struct ConnectionLimitsTests {
    @Test("a connection that has not sent its preface within the handshake timeout is closed, and counted")
    func handshakeTimeout() throws {
        var timeouts = 0
        var chosen: [ProtocolSniffer.WireProtocol] = []
        let sniffer = ProtocolSniffer(handshakeTimeout: .seconds(10), timedOut: { timeouts += 1 }, configure: { wire, _ in chosen.append(wire) })
        let channel = EmbeddedChannel(handler: sniffer)
        try channel.connect(to: SocketAddress(ipAddress: "127.0.0.1", port: 1)).wait()
        // Half a preface does not count: the connection has still not said what it speaks.
        try channel.writeInbound(ByteBuffer(string: "PRI * HTTP/2.0"))
        channel.embeddedEventLoop.advanceTime(by: .milliseconds(9_999))
        #expect(channel.isActive)
        channel.embeddedEventLoop.advanceTime(by: .milliseconds(1))
        #expect(!channel.isActive)
        #expect(timeouts == 1)
        #expect(chosen.isEmpty)
    }

    @Test("once the preface is in, the handshake timeout no longer applies")
    func prefaceCancelsTimeout() throws {
        var timeouts = 0
        let sniffer = ProtocolSniffer(handshakeTimeout: .seconds(10), timedOut: { timeouts += 1 }, configure: { _, _ in })
        let channel = EmbeddedChannel(handler: sniffer)
        try channel.connect(to: SocketAddress(ipAddress: "127.0.0.1", port: 1)).wait()
        try channel.writeInbound(ByteBuffer(bytes: HTTP2FrameReader.preface))
        channel.embeddedEventLoop.advanceTime(by: .seconds(60))
        #expect(channel.isActive)
        #expect(timeouts == 0)
        _ = try channel.finish()
    }

    @Test("a live TCP connection that never speaks is closed after the configured handshake timeout")
    func liveHandshakeTimeout() async throws {
        let fixture = try await GatewayFixture.start { $0.limits.handshakeTimeout = .milliseconds(200) }
        let channel = try await ClientBootstrap(group: fixture.clientGroup).connect(host: "127.0.0.1", port: try await fixture.port(tls: false)).get()
        try await channel.closeFuture.get(within: .seconds(10))
        await fixture.stop()
    }

    @Test("beyond maximumConnections a new connection is closed at once; the open ones stay")
    func connectionCap() async throws {
        let fixture = try await GatewayFixture.start { $0.limits.maximumConnections = 2 }
        let port = try await fixture.port(tls: false)
        var open: [any Channel] = []
        for _ in 0..<2 {
            open.append(try await ClientBootstrap(group: fixture.clientGroup).connect(host: "127.0.0.1", port: port).get())
        }
        // Wait (bounded) until the gateway holds both, so that the third one is over the cap.
        try await eventually("the gateway holds both connections", within: .seconds(5)) { await fixture.gateway.connectionCount == 2 }
        let third = try await ClientBootstrap(group: fixture.clientGroup).connect(host: "127.0.0.1", port: port).get()
        try await third.closeFuture.get(within: .seconds(5))
        let stillOpen = open.allSatisfy { $0.isActive }
        #expect(stillOpen)
        #expect(await fixture.gateway.connectionCount == 2)
        for channel in open { try? await channel.close() }
        await fixture.stop()
    }

    @Test("the connection registry admits up to its limit and reports reaching it once")
    func registryAdmits() throws {
        let registry = ConnectionRegistry(gauge: GatewayMetrics(registry: .init()).connections)
        var reached = 0
        let channels = (0..<4).map { _ in EmbeddedChannel() }
        let admitted = channels.map { registry.admit($0, limit: 2) { reached += 1 } }
        #expect(admitted == [true, true, false, false])
        #expect(reached == 1)
        try channels[0].close().wait()
        channels[0].embeddedEventLoop.run()
        #expect(registry.admit(EmbeddedChannel(), limit: 2) { reached += 1 })
        #expect(!registry.admit(EmbeddedChannel(), limit: 2) { reached += 1 })
        #expect(reached == 2)
    }
}
