import HeraldCore
import HeraldTestTiers
import NIOCore
import NIOEmbedded
import Testing

@testable import HeraldGateway

/// Tier 1 and 2: random and mutated input never crashes the codec; it is decoded or refused with an error.
@Suite("HTTP/2 codec on random input", .tier(.unit))
struct HTTP2FuzzTests {
    @Test("random and mutated header blocks decode or throw HPACKError")
    func headerBlocks() {
        var random = SplitMix64(seed: 7541)
        let valid = HPACKFieldDecoderTests.bytes("8287 85bf 4088 25a8 49e9 5ba9 7d7f 8925 a849 e95b b8e8 b4bf")
        var decoded = 0
        for round in 0..<3000 {
            var decoder = HPACKFieldDecoder()
            var block: [UInt8]
            if round % 2 == 0 {
                block = (0..<random.next(below: 48)).map { _ in UInt8(truncatingIfNeeded: random.next()) }
            } else {
                block = valid
                for _ in 0...random.next(below: 3) {
                    block[random.next(below: block.count)] = UInt8(truncatingIfNeeded: random.next())
                }
            }
            do {
                try decoder.decode(ByteBuffer(bytes: block)) { field in _ = try? field.value.text() }
                decoded += 1
            } catch {
                // Refused as COMPRESSION_ERROR: what the test wants besides success.
            }
        }
        #expect(decoded > 0)
    }

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
