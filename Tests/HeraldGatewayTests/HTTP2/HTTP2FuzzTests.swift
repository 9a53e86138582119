import HeraldCore
import HeraldTestTiers
import NIOCore
import NIOEmbedded
import Testing

@testable import HeraldGateway

/// Tier 2: random frames never crash the connection; they are answered or refused with an error (the codec alone:
/// HeraldHTTP2Tests' `HTTP2FuzzTests`).
@Suite("HTTP/2 connection on random input", .tier(.unit))
struct HTTP2FuzzTests {
    @Test("random frames after a valid opening end in answers or a GOAWAY, never a crash")
    func connectionFrames() async throws {
        let fixture = try await ProcessorFixture.make()
        var random = SplitMix64(seed: 9113)
        for _ in 0..<200 {
            let (channel, _) = try ProviderHTTP2ConnectionTests.open(fixture.connection())
            for _ in 0..<20 where channel.isActive {
                var bytes = ByteBuffer()
                let payload = (0..<random.next(below: 40)).map { _ in UInt8(truncatingIfNeeded: random.next()) }
                let type = UInt8(random.next(below: 11))
                let flags = UInt8(truncatingIfNeeded: random.next())
                bytes.writeFrame(type: type, flags: flags, streamID: UInt32(random.next(below: 8)), payload: payload)
                try channel.writeInbound(bytes)
                channel.pipeline.fireChannelReadComplete()
            }
            while try channel.readOutbound(as: ByteBuffer.self) != nil {}
            _ = try? channel.finish()
        }
        await fixture.stop()
    }
}
