/// Decodes HPACK's Huffman code (RFC 7541 §5.2 and Appendix B).
///
/// The code is canonical, so each symbol's code follows from the code lengths alone: the table below is those
/// lengths. Decoding goes four bits at a time through a table built from them once (the approach of nghttp2's
/// decoder): `authorization` is sent as a never-indexed Huffman literal by common clients, so every request
/// decodes a JWT.
public enum HPACKHuffman {
    /// Appends the decoded bytes of `encoded` to `output`.
    ///
    /// Throws for the EOS symbol inside a string and for padding that is longer than 7 bits or not all ones
    /// (RFC 7541 §5.2), which a decoder must treat as a decoding error.
    public static func decode(_ encoded: some Sequence<UInt8>, into output: inout [UInt8]) throws(HPACKError) {
        let transitions = Self.transitions
        var state = 0
        func step(_ nibble: UInt8) throws(HPACKError) {
            let transition = transitions[state << 4 | Int(nibble)]
            guard transition.flags & Transition.failed == 0 else { throw HPACKError("EOS symbol inside a Huffman string") }
            if transition.flags & Transition.emits != 0 { output.append(transition.symbol) }
            state = Int(transition.next)
        }
        for byte in encoded {
            try step(byte >> 4)
            try step(byte & 0x0F)
        }
        guard acceptingStates[state] else { throw HPACKError("invalid Huffman padding") }
    }

    /// The number of octets `encoded` decodes to, checking it as `decode` does but keeping nothing.
    public static func decodedLength(_ encoded: some Sequence<UInt8>) throws(HPACKError) -> Int {
        let transitions = Self.transitions
        var state = 0
        var count = 0
        func step(_ nibble: UInt8) throws(HPACKError) {
            let transition = transitions[state << 4 | Int(nibble)]
            guard transition.flags & Transition.failed == 0 else { throw HPACKError("EOS symbol inside a Huffman string") }
            count += Int(transition.flags & Transition.emits)
            state = Int(transition.next)
        }
        for byte in encoded {
            try step(byte >> 4)
            try step(byte & 0x0F)
        }
        guard acceptingStates[state] else { throw HPACKError("invalid Huffman padding") }
        return count
    }

    /// One step of the decoder: from a node of the code tree, four bits lead to another node and emit at most one
    /// symbol (no code is shorter than 5 bits).
    private struct Transition: Sendable {
        static let emits: UInt8 = 1
        static let failed: UInt8 = 2
        var next: UInt8 = 0
        var symbol: UInt8 = 0
        var flags: UInt8 = 0
    }

    /// The code tree: `children[node]` for the 256 inner nodes (node 0 is the root); a child is an inner node, or a
    /// leaf `-1 - symbol`.
    private static let tree: [[Int]] = {
        var children: [[Int]] = [[0, 0]]
        // The code is canonical: codes in order of length, then symbol, are consecutive numbers.
        let ordered = (0..<codeLengths.count).sorted { (codeLengths[$0], $0) < (codeLengths[$1], $1) }
        var code = 0
        var previousLength = Int(codeLengths[ordered[0]])
        for (position, symbol) in ordered.enumerated() {
            let length = Int(codeLengths[symbol])
            if position > 0 { code = (code + 1) << (length - previousLength) }
            previousLength = length
            var node = 0
            for depth in stride(from: length - 1, through: 0, by: -1) {
                let bit = (code >> depth) & 1
                if depth == 0 {
                    children[node][bit] = -1 - symbol
                } else {
                    if children[node][bit] == 0 {
                        children.append([0, 0])
                        children[node][bit] = children.count - 1
                    }
                    node = children[node][bit]
                }
            }
        }
        return children
    }()

    /// For each inner node and 4-bit input: where the decoder goes and what it emits (16 entries a node).
    private static let transitions: [Transition] = {
        var table = [Transition](repeating: Transition(), count: tree.count * 16)
        for start in 0..<tree.count {
            for nibble in 0..<16 {
                var transition = Transition()
                var node = start
                for shift in stride(from: 3, through: 0, by: -1) {
                    let child = tree[node][(nibble >> shift) & 1]
                    if child >= 0 {
                        node = child
                    } else if child == -1 - 256 {
                        transition.flags |= Transition.failed
                        node = 0
                    } else {
                        transition.flags |= Transition.emits
                        transition.symbol = UInt8(-1 - child)
                        node = 0
                    }
                }
                transition.next = UInt8(node)
                table[start << 4 | nibble] = transition
            }
        }
        return table
    }()

    /// Whether decoding may end at a node: the root, or a prefix of EOS (all ones) of at most 7 bits.
    private static let acceptingStates: [Bool] = {
        var accepting = [Bool](repeating: false, count: tree.count)
        var node = 0
        for _ in 0...7 {
            accepting[node] = true
            let next = tree[node][1]
            guard next > 0 else { break }
            node = next
        }
        return accepting
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
public struct HPACKError: Error, Equatable, Sendable, CustomStringConvertible {
    /// What was wrong, for logs and tests.
    public var description: String

    /// An error saying what was wrong.
    public init(_ description: String) {
        self.description = description
    }
}
