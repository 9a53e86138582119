import HeraldTestTiers
import NIOCore
import NIOHTTP2
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

    @Test("§5.2: the decoder checks an ignored Huffman string and measures it without keeping it")
    func decoderChecksIgnoredHuffman() throws {
        var decoder = HPACKFieldDecoder()
        // "no-cache" Huffman-coded (RFC 7541 C.4.2), without indexing, under a new name.
        var valid = ByteBuffer(bytes: [0x00, 0x01, UInt8(ascii: "x"), 0x86, 0xA8, 0xEB, 0x10, 0x64, 0x9C, 0xBF])
        var sizes: [Int] = []
        try decoder.decode(valid) { sizes.append($0.size) }
        #expect(sizes == [1 + 8 + 32])
        valid = ByteBuffer(bytes: [0x00, 0x01, UInt8(ascii: "x"), 0x81, 0x00])
        #expect(throws: HPACKError.self) { try decoder.decode(valid) { _ in } }
    }
}
