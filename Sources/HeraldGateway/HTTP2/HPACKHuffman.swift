/// Decodes HPACK's Huffman code (RFC 7541 §5.2 and Appendix B).
///
/// The code is canonical, so each symbol's code follows from the code lengths alone: the table below is those
/// lengths, and decoding walks the codes of each length as contiguous ranges.
enum HPACKHuffman {
    /// Appends the decoded bytes of `encoded` to `output`.
    ///
    /// Throws for the EOS symbol inside a string and for padding that is longer than 7 bits or not all ones
    /// (RFC 7541 §5.2), which a decoder must treat as a decoding error.
    static func decode(_ encoded: some Sequence<UInt8>, into output: inout [UInt8]) throws(HPACKError) {
        let table = Self.table
        var code: UInt32 = 0
        var length = 0
        for byte in encoded {
            for shift in stride(from: 7, through: 0, by: -1) {
                code = code << 1 | UInt32((byte >> UInt8(shift)) & 1)
                length += 1
                guard length <= Self.maximumCodeLength else { throw HPACKError("Huffman code longer than 30 bits") }
                let offset = code &- table.firstCode[length]
                guard code >= table.firstCode[length], offset < table.count[length] else { continue }
                let symbol = table.symbols[table.start[length] + Int(offset)]
                guard symbol < 256 else { throw HPACKError("EOS symbol inside a Huffman string") }
                output.append(UInt8(symbol))
                code = 0
                length = 0
            }
        }
        guard length <= 7, code == (UInt32(1) << UInt32(length)) - 1 else { throw HPACKError("invalid Huffman padding") }
    }

    private static let maximumCodeLength = 30

    private struct Table: Sendable {
        /// Per code length: the first code of that length, how many symbols have it, where they start in `symbols`.
        var firstCode = [UInt32](repeating: 0, count: 31)
        var count = [UInt32](repeating: 0, count: 31)
        var start = [Int](repeating: 0, count: 31)
        /// Symbols ordered by code length, then by value: the canonical order.
        var symbols: [UInt16] = []
    }

    private static let table: Table = {
        var table = Table()
        for length in 1...maximumCodeLength {
            table.start[length] = table.symbols.count
            for symbol in 0..<codeLengths.count where Int(codeLengths[symbol]) == length {
                table.symbols.append(UInt16(symbol))
            }
            table.count[length] = UInt32(table.symbols.count - table.start[length])
        }
        var code: UInt32 = 0
        for length in 1...maximumCodeLength {
            table.firstCode[length] = code
            code = (code + table.count[length]) << 1
        }
        return table
    }()

    /// The code length of each symbol 0…256 (256 is EOS), from RFC 7541 Appendix B.
    private static let codeLengths: [UInt8] = [
        13, 23, 28, 28, 28, 28, 28, 28, 28, 24, 30, 28, 28, 30, 28, 28, 28, 28, 28, 28, 28, 28, 30, 28, 28, 28, 28, 28, 28, 28, 28, 28,
        6, 10, 10, 12, 13, 6, 8, 11, 10, 10, 8, 11, 8, 6, 6, 6, 5, 5, 5, 6, 6, 6, 6, 6, 6, 6, 7, 8, 15, 6, 12, 10,
        13, 6, 7, 7, 7, 7, 7, 7, 7, 7, 7, 7, 7, 7, 7, 7, 7, 7, 7, 7, 7, 7, 7, 7, 8, 7, 8, 13, 19, 13, 14, 6,
        15, 5, 6, 5, 6, 5, 6, 6, 6, 5, 7, 7, 6, 6, 6, 5, 6, 7, 6, 5, 5, 6, 7, 7, 7, 7, 7, 15, 11, 14, 13, 28,
        20, 22, 20, 20, 22, 22, 22, 23, 22, 23, 23, 23, 23, 23, 24, 23, 24, 24, 22, 23, 24, 23, 23, 23, 23, 21, 22, 23, 22, 23, 23, 24,
        22, 21, 20, 22, 22, 23, 23, 21, 23, 22, 22, 24, 21, 22, 23, 23, 21, 21, 22, 21, 23, 22, 23, 23, 20, 22, 22, 22, 23, 22, 22, 23,
        26, 26, 20, 19, 22, 23, 22, 25, 26, 26, 26, 27, 27, 26, 24, 25, 19, 21, 26, 27, 27, 26, 27, 24, 21, 21, 26, 26, 28, 27, 27, 27,
        20, 24, 20, 21, 22, 21, 21, 23, 22, 22, 25, 25, 24, 24, 26, 23, 26, 27, 26, 26, 27, 27, 27, 27, 27, 28, 27, 27, 27, 27, 27, 26,
        30,
    ]
}

/// A malformed header block: a connection error of type COMPRESSION_ERROR (RFC 7541 §2.1, RFC 9113 §4.3).
struct HPACKError: Error, Equatable, CustomStringConvertible {
    /// What was wrong, for logs and tests.
    var description: String

    init(_ description: String) {
        self.description = description
    }
}
