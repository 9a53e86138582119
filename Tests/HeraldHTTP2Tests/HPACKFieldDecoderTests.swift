import HeraldCore
import HeraldHTTP2
import HeraldTestTiers
import NIOCore
import NIOHPACK
import Testing

/// Tier 1: the HPACK decoder against RFC 7541 Appendix C, and malformed blocks.
@Suite("HPACK decoder", .tier(.unit))
struct HPACKFieldDecoderTests {
    @Test("C.2: the four literal and indexed forms")
    func literalForms() throws {
        var decoder = HPACKFieldDecoder()
        #expect(try decode("400a 6375 7374 6f6d 2d6b 6579 0d63 7573 746f 6d2d 6865 6164 6572", &decoder) == [["custom-key", "custom-header"]])
        #expect(decoder.tableSize == 55)
        decoder = HPACKFieldDecoder()
        #expect(try decode("040c 2f73 616d 706c 652f 7061 7468", &decoder) == [[":path", "/sample/path"]])
        #expect(decoder.tableSize == 0)
        #expect(try decode("1008 7061 7373 776f 7264 0673 6563 7265 74", &decoder) == [["password", "secret"]])
        #expect(decoder.tableSize == 0)
        #expect(try decode("82", &decoder) == [[":method", "GET"]])
        #expect(decoder.dynamicEntryCount == 0)
    }

    @Test("C.3: three requests without Huffman coding share one dynamic table")
    func requestsWithoutHuffman() throws {
        try checkRequests([
            "8286 8441 0f77 7777 2e65 7861 6d70 6c65 2e63 6f6d",
            "8286 84be 5808 6e6f 2d63 6163 6865",
            "8287 85bf 400a 6375 7374 6f6d 2d6b 6579 0c63 7573 746f 6d2d 7661 6c75 65",
        ])
    }

    @Test("C.4: the same requests with Huffman coding")
    func requestsWithHuffman() throws {
        try checkRequests([
            "8286 8441 8cf1 e3c2 e5f2 3a6b a0ab 90f4 ff",
            "8286 84be 5886 a8eb 1064 9cbf",
            "8287 85bf 4088 25a8 49e9 5ba9 7d7f 8925 a849 e95b b8e8 b4bf",
        ])
    }

    private func checkRequests(_ blocks: [String]) throws {
        var decoder = HPACKFieldDecoder()
        let base = [[":method", "GET"], [":scheme", "http"], [":path", "/"], [":authority", "www.example.com"]]
        #expect(try decode(blocks[0], &decoder) == base)
        #expect(decoder.tableSize == 57)
        #expect(try decode(blocks[1], &decoder) == base + [["cache-control", "no-cache"]])
        #expect(decoder.tableSize == 110)
        let third = [[":method", "GET"], [":scheme", "https"], [":path", "/index.html"], [":authority", "www.example.com"]]
        #expect(try decode(blocks[2], &decoder) == third + [["custom-key", "custom-value"]])
        #expect(decoder.tableSize == 164)
        #expect(decoder.dynamicEntryCount == 3)
    }

    @Test("C.5: responses without Huffman coding evict from a 256-byte table")
    func responsesWithoutHuffman() throws {
        try checkResponses([
            """
            4803 3330 3258 0770 7269 7661 7465 611d 4d6f 6e2c 2032 3120 4f63 7420 3230 3133 2032 303a 3133 3a32 3120 474d 546e \
            1768 7474 7073 3a2f 2f77 7777 2e65 7861 6d70 6c65 2e63 6f6d
            """,
            "4803 3330 37c1 c0bf",
            """
            88c1 611d 4d6f 6e2c 2032 3120 4f63 7420 3230 3133 2032 303a 3133 3a32 3220 474d 54c0 5a04 677a 6970 7738 666f 6f3d \
            4153 444a 4b48 514b 425a 584f 5157 454f 5049 5541 5851 5745 4f49 553b 206d 6178 2d61 6765 3d33 3630 303b 2076 6572 \
            7369 6f6e 3d31
            """,
        ])
    }

    @Test("C.6: the same responses with Huffman coding")
    func responsesWithHuffman() throws {
        try checkResponses([
            """
            4882 6402 5885 aec3 771a 4b61 96d0 7abe 9410 54d4 44a8 2005 9504 0b81 66e0 82a6 2d1b ff6e 919d 29ad 1718 63c7 8f0b \
            97c8 e9ae 82ae 43d3
            """,
            "4883 640e ffc1 c0bf",
            """
            88c1 6196 d07a be94 1054 d444 a820 0595 040b 8166 e084 a62d 1bff c05a 839b d9ab 77ad 94e7 821d d7f2 e6c7 b335 dfdf \
            cd5b 3960 d5af 2708 7f36 72c1 ab27 0fb5 291f 9587 3160 65c0 03ed 4ee5 b106 3d50 07
            """,
        ])
    }

    private func checkResponses(_ blocks: [String]) throws {
        // The examples use a 256-byte table: the table size update that announces it comes first.
        var decoder = HPACKFieldDecoder()
        #expect(try decode("3fe1 01", &decoder).isEmpty)
        #expect(decoder.maximumTableSize == 256)
        let tail = [["cache-control", "private"], ["date", "Mon, 21 Oct 2013 20:13:21 GMT"], ["location", "https://www.example.com"]]
        #expect(try decode(blocks[0], &decoder) == [[":status", "302"]] + tail)
        #expect(decoder.tableSize == 222)
        #expect(try decode(blocks[1], &decoder) == [[":status", "307"]] + tail)
        #expect(decoder.tableSize == 222)
        #expect(
            try decode(blocks[2], &decoder) == [
                [":status", "200"], ["cache-control", "private"], ["date", "Mon, 21 Oct 2013 20:13:22 GMT"],
                ["location", "https://www.example.com"], ["content-encoding", "gzip"],
                ["set-cookie", "foo=ASDJKHQKBZXOQWEOPIUAXQWEOIU; max-age=3600; version=1"],
            ]
        )
        #expect(decoder.tableSize == 215)
        #expect(decoder.dynamicEntryCount == 3)
    }

    @Test("a table size update evicts, and may not exceed the advertised size or follow a field")
    func tableSizeUpdates() throws {
        var decoder = HPACKFieldDecoder()
        _ = try decode("400a 6375 7374 6f6d 2d6b 6579 0d63 7573 746f 6d2d 6865 6164 6572", &decoder)
        #expect(try decode("20 3fe1 1f 82", &decoder) == [[":method", "GET"]])
        #expect(decoder.dynamicEntryCount == 0)
        #expect(decoder.maximumTableSize == 4096)
        #expect(throws: HPACKError.self) { try decode("3fe2 1f", &decoder) }
        #expect(throws: HPACKError.self) { try decode("82 20", &decoder) }
    }

    @Test("an entry larger than the table empties it and is not added")
    func oversizedEntry() throws {
        var decoder = HPACKFieldDecoder()
        _ = try decode("3f11", &decoder)  // size 48
        #expect(try decode("4003 6162 6303 7878 78", &decoder) == [["abc", "xxx"]])
        #expect(decoder.tableSize == 38)
        #expect(try decode("4004 6162 6364 0379 7979", &decoder) == [["abcd", "yyy"]])
        #expect(decoder.tableSize == 39)
        #expect(try decode("400a 6162 6364 6566 6768 696a 0730 3132 3334 3536", &decoder) == [["abcdefghij", "0123456"]])
        #expect(decoder.dynamicEntryCount == 0)
    }

    @Test(
        "integers: values at and over the prefix, multi-byte, truncated, too large",
        arguments: [
            ("0a", 5, 10), ("1f 00", 5, 31), ("1f 9a 0a", 5, 1337), ("ff 80 80 80 7f", 8, 255 + (127 << 21)),
        ]
    )
    func integers(hex: String, prefix: Int, value: Int) throws {
        var buffer = ByteBuffer(bytes: Self.bytes(hex))
        let read = buffer.readInteger(as: UInt8.self)
        let first = try #require(read)
        #expect(try HPACKFieldDecoder.readInteger(first: first, prefix: prefix, from: &buffer) == value)
        #expect(buffer.readableBytes == 0)
    }

    @Test("malformed integers are errors, not crashes", arguments: ["1f", "1f ff", "1f ff ff ff ff ff ff ff ff ff ff 01"])
    func malformedIntegers(hex: String) throws {
        var buffer = ByteBuffer(bytes: Self.bytes(hex))
        let read = buffer.readInteger(as: UInt8.self)
        let first = try #require(read)
        #expect(throws: HPACKError.self) { try HPACKFieldDecoder.readInteger(first: first, prefix: 5, from: &buffer) }
    }

    @Test(
        "malformed blocks are COMPRESSION_ERROR, not crashes",
        arguments: [
            "80",  // index 0
            "be",  // dynamic index 62, empty table
            "ff ff ff ff ff 0f",  // index far beyond the tables
            "4005 6162",  // name longer than the block
            "40",  // literal without a name
            "4081 ff 0161",  // Huffman name: padding longer than 7 bits
            "4184 ffff ffff",  // Huffman value that decodes EOS
            "4182 0000",  // Huffman value whose padding is zeros
            "0488 ffff ffff ffff ffff",  // a value Herald reads (:path), with EOS
        ]
    )
    func malformedBlocks(hex: String) throws {
        var decoder = HPACKFieldDecoder()
        #expect(throws: HPACKError.self) { try decode(hex, &decoder) }
    }

    @Test("Herald's headers are matched on bytes, in any case, and handed out as text")
    func knownFields() throws {
        var decoder = HPACKFieldDecoder()
        var known: [ProviderRequestHead.Field] = []
        // :method POST (static), :path literal indexed, "APNS-TOPIC" literal name, user-agent ignored
        let block = "83 440e 2f33 2f64 6576 6963 652f 6162 6364 400a 4150 4e53 2d54 4f50 4943 0161 7a01 78"
        try decoder.decode(ByteBuffer(bytes: Self.bytes(block))) { field in
            if let field = field.known {
                known.append(field)
            }
        }
        #expect(known == [.method, .path, .topic])
        // Indexed afterwards, the entries give the same fields back.
        known = []
        var values: [String] = []
        try decoder.decode(ByteBuffer(bytes: Self.bytes("bf c0"))) { field in
            if let name = field.known, case .text(let value) = field.value.storage {
                known.append(name)
                values.append(value)
            }
        }
        #expect(known == [.topic, .path])
        #expect(values == ["a", "/3/device/abcd"])
    }

    @Test("Huffman: every octet value decodes as NIO's encoder encoded it")
    func huffmanAllOctets() throws {
        let value = String(String.UnicodeScalarView((1...255).compactMap(Unicode.Scalar.init)))
        var encoder = NIOHPACK.HPACKEncoder(allocator: ByteBufferAllocator())
        var block = ByteBuffer()
        try encoder.encode(headers: HPACKHeaders([("x-all", value), ("apns-topic", value)]), to: &block)
        var decoder = HPACKFieldDecoder()
        #expect(try decode(block, &decoder) == [["x-all", value], ["apns-topic", value]])
    }

    @Test("a repeated never-indexed authorization literal gives the same text; a different one its own")
    func authorizationLiterals() throws {
        var decoder = HPACKFieldDecoder()
        let first = "1f08 08 6265 6172 6572 2061"
        #expect(try decode(first, &decoder) == [["authorization", "bearer a"]])
        #expect(try decode(first, &decoder) == [["authorization", "bearer a"]])
        #expect(try decode("1f08 08 6265 6172 6572 2062", &decoder) == [["authorization", "bearer b"]])
        #expect(decoder.dynamicEntryCount == 0)
    }

    private func decode(_ block: ByteBuffer, _ decoder: inout HPACKFieldDecoder) throws -> [[String]] {
        var fields: [HPACKField] = []
        try decoder.decode(block) { fields.append($0) }
        return try fields.map { [try $0.name.text(), try $0.value.text()] }
    }

    private func decode(_ hex: String, _ decoder: inout HPACKFieldDecoder) throws -> [[String]] {
        try decode(ByteBuffer(bytes: Self.bytes(hex)), &decoder)
    }

    static func bytes(_ hex: String) -> [UInt8] {
        let digits = hex.filter(\.isHexDigit)
        return stride(from: 0, to: digits.count - 1, by: 2).compactMap { offset in
            let start = digits.index(digits.startIndex, offsetBy: offset)
            return UInt8(digits[start...digits.index(after: start)], radix: 16)
        }
    }
}
