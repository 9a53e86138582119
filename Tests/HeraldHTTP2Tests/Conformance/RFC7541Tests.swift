import HeraldHTTP2
import HeraldTestTiers
import NIOCore
import Testing

/// RFC 7541 (HPACK) in the decoder alone; on the provider port, where a decoding error is a connection error
/// COMPRESSION_ERROR (RFC 9113 §4.3): HeraldGatewayTests' `RFC7541Tests`.
@Suite("RFC 7541: HPACK decoder", .tier(.unit))
struct RFC7541Tests {
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
