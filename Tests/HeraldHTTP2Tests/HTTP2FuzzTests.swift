import HeraldCore
import HeraldHTTP2
import HeraldTestTiers
import NIOCore
import Testing

/// Tier 1: random and mutated input never crashes the codec; it is decoded or refused with an error (the connection:
/// HeraldGatewayTests' `HTTP2FuzzTests`).
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
}
