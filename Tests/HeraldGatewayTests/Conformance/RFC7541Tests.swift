import HeraldHTTP2
import HeraldTestTiers
import NIOCore
import Testing

@testable import HeraldGateway

/// RFC 7541 (HPACK) on the provider port: decoding errors are connection errors COMPRESSION_ERROR (RFC 9113 §4.3).
@Suite("RFC 7541: HPACK", .tier(.unit))
struct RFC7541Tests {
    @Test(
        "§5.2: invalid Huffman in a header Herald ignores is still a COMPRESSION_ERROR",
        arguments: [
            [UInt8]([0xFF, 0xFF, 0xFF, 0xFF]),  // the EOS symbol inside the string
            [0x00],  // '0' then padding of zeros, not a prefix of EOS
            [0x1F, 0xFF],  // '0', then eleven bits of ones: padding longer than 7 bits
        ]
    )
    func invalidHuffmanInIgnoredField(encoded: [UInt8]) async throws {
        var connection = try await ConformanceConnection.open()
        var block = RawHeaderBlock(connection.request())
        block.add("x-ignored", huffmanEncoded: encoded)
        #expect(try connection.send(headersFrame(streamID: 1, block.bytes)) == [ConformanceConnection.goAway(.compressionError)])
        #expect(!connection.isOpen)
        #expect(connection.protocolErrors("COMPRESSION_ERROR") == "1")
        await connection.stop()
    }
}
