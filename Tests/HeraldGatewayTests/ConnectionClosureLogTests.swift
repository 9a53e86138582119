import HeraldCore
import HeraldTestSupport
import HeraldTestTiers
import Logging
import NIOCore
import NIOEmbedded
import NIOHTTP2
import Testing

@testable import HeraldGateway

/// The warning per provider connection closed for a protocol error or a limit, and the rate that bounds it.
@Suite("Connection closure log: one warning per closure, at most N a second", .tier(.unit))
struct ConnectionClosureLogTests {
    @Test("within the rate every closure is a line with the peer, the error and the limit")
    func lines() {
        let captured = CapturedLog()
        let clock = ManualWallClock(milliseconds: 1_000_000)
        let log = ConnectionClosureLog(logger: captured.logger, linesPerSecond: 3, nowMilliseconds: { clock.nowMilliseconds() })
        let peer = try? SocketAddress(ipAddress: "192.0.2.7", port: 50_412)
        log.record(.init(error: "ENHANCE_YOUR_CALM", limit: "maximumContinuationFrames=64"), peer: peer)
        log.record(.init(error: "PROTOCOL_ERROR"), peer: try? SocketAddress(ipAddress: "::1", port: 443))
        #expect(
            captured.entries == [
                .init(
                    level: .warning,
                    message: "provider connection closed: ENHANCE_YOUR_CALM",
                    metadata: [
                        "gateway.peer": "192.0.2.7:50412", "gateway.error": "ENHANCE_YOUR_CALM", "gateway.limit": "maximumContinuationFrames=64",
                    ]
                ),
                .init(
                    level: .warning,
                    message: "provider connection closed: PROTOCOL_ERROR",
                    metadata: ["gateway.peer": "[::1]:443", "gateway.error": "PROTOCOL_ERROR"]
                ),
            ]
        )
    }

    @Test("past the rate, lines are counted, and the next line written says how many were left out")
    func rate() {
        let captured = CapturedLog()
        let clock = ManualWallClock(milliseconds: 5_000_000)
        let log = ConnectionClosureLog(logger: captured.logger, linesPerSecond: 3, nowMilliseconds: { clock.nowMilliseconds() })
        for _ in 0..<100 { log.record(.init(error: "PROTOCOL_ERROR"), peer: nil) }
        #expect(captured.entries.count == 3)
        #expect(
            captured.entries.allSatisfy { $0.message == "provider connection closed: PROTOCOL_ERROR" && $0.metadata["gateway.peer"] == "unknown" }
        )
        // Still the same second: nothing more.
        clock.advance(seconds: 0.9)
        log.record(.init(error: "PROTOCOL_ERROR"), peer: nil)
        #expect(captured.entries.count == 3)
        // The next second: the 98 left out, then the line itself.
        clock.advance(seconds: 0.2)
        log.record(.init(error: "FRAME_SIZE_ERROR"), peer: nil)
        let last = captured.entries.suffix(2).map(\.message)
        #expect(last == ["98 provider connection closures not logged (at most 3 lines a second)", "provider connection closed: FRAME_SIZE_ERROR"])
        #expect(captured.entries.suffix(2).first?.metadata["gateway.unlogged_closures"] == "98")
        // A count reported once is not reported again.
        log.record(.init(error: "FRAME_SIZE_ERROR"), peer: nil)
        #expect(captured.entries.count == 6)
        #expect(captured.entries.last?.message == "provider connection closed: FRAME_SIZE_ERROR")
    }

    @Test("a clock read from the second before (another event loop's, taken before the lock) counts in the current second")
    func secondGoesOnlyForward() {
        let captured = CapturedLog()
        let clock = ManualWallClock(milliseconds: 7_000_999)
        let log = ConnectionClosureLog(logger: captured.logger, linesPerSecond: 2, nowMilliseconds: { clock.nowMilliseconds() })
        log.record(.init(error: "PROTOCOL_ERROR"), peer: nil)
        clock.set(milliseconds: 7_001_000)
        log.record(.init(error: "PROTOCOL_ERROR"), peer: nil)
        log.record(.init(error: "PROTOCOL_ERROR"), peer: nil)
        #expect(captured.entries.count == 3)
        // Back in the second before: not a new count of 2, but the third line of this second, left out.
        clock.set(milliseconds: 7_000_999)
        log.record(.init(error: "PROTOCOL_ERROR"), peer: nil)
        log.record(.init(error: "PROTOCOL_ERROR"), peer: nil)
        #expect(captured.entries.count == 3)
        clock.set(milliseconds: 7_002_000)
        log.record(.init(error: "PROTOCOL_ERROR"), peer: nil)
        #expect(captured.entries.suffix(2).first?.metadata["gateway.unlogged_closures"] == "2")
    }

    @Test("0 lines a second logs nothing")
    func off() {
        let captured = CapturedLog()
        let log = ConnectionClosureLog(logger: captured.logger, linesPerSecond: 0, nowMilliseconds: { 0 })
        log.record(.init(error: "PROTOCOL_ERROR"), peer: nil)
        #expect(captured.entries.isEmpty)
    }

    @Test("a provider connection ended by a protocol error or a limit logs its line", arguments: [false, true])
    func fromTheConnection(limit: Bool) async throws {
        let captured = CapturedLog()
        let fixture = try await ProcessorFixture.make()
        let processor = ProviderRequestProcessor(
            configuration: GatewayConfiguration(),
            services: ProviderServices(store: fixture.store, clock: fixture.clock),
            logger: captured.logger
        )
        let handler = ProviderHTTP2Connection(
            processor: processor,
            connection: processor.makeConnectionState(clientCertificateDER: nil),
            initialConcurrentStreams: 1,
            maximumConcurrentStreams: 10
        )
        let channel = EmbeddedChannel(handler: handler)
        try await channel.connect(to: SocketAddress(ipAddress: "127.0.0.1", port: 7)).get()
        var bytes = HTTP2TestPeer().preface()
        if limit {
            // A header block that never ends: the 65th CONTINUATION passes maximumContinuationFrames.
            bytes.writeFrame(type: 0x1, streamID: 1, payload: [0x82])
            for _ in 0..<65 { bytes.writeFrame(type: 0x9, streamID: 1, payload: []) }
        } else {
            bytes.writeFrame(type: 0x5, streamID: 1, payload: [0, 0, 0, 2])
        }
        try channel.writeInbound(bytes)
        #expect(!channel.isActive)
        let entry = try #require(captured.entries.last)
        #expect(entry.level == .warning)
        #expect(entry.metadata["gateway.error"] == (limit ? "ENHANCE_YOUR_CALM" : "PROTOCOL_ERROR"))
        #expect(entry.metadata["gateway.limit"] == (limit ? "maximumContinuationFrames=64" : nil))
        _ = try? channel.finish()
        await fixture.stop()
    }
}
