/// Base64url without padding (RFC 4648 §5), as JWTs use it (RFC 7515 §2).
///
/// Decoding is liberal: it also accepts the standard alphabet (`+`, `/`) and trailing `=` padding, since some
/// hand-written clients send them.
public enum Base64URL {
    private static let alphabet = Array("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_".utf8)

    private static let decodeTable: [UInt8] = {
        var table = [UInt8](repeating: 0xFF, count: 256)
        for (index, byte) in alphabet.enumerated() { table[Int(byte)] = UInt8(index) }
        table[Int(UInt8(ascii: "+"))] = 62
        table[Int(UInt8(ascii: "/"))] = 63
        return table
    }()

    /// Encodes bytes without padding.
    public static func encode(_ bytes: some Collection<UInt8>) -> String {
        var output: [UInt8] = []
        output.reserveCapacity((bytes.count * 4 + 2) / 3)
        var iterator = bytes.makeIterator()
        while let first = iterator.next() {
            let second = iterator.next()
            let third = iterator.next()
            output.append(alphabet[Int(first >> 2)])
            output.append(alphabet[Int((first & 0x03) << 4 | (second ?? 0) >> 4)])
            if let second {
                output.append(alphabet[Int((second & 0x0F) << 2 | (third ?? 0) >> 6)])
                if let third { output.append(alphabet[Int(third & 0x3F)]) }
            }
        }
        return String(decoding: output, as: UTF8.self)
    }

    /// Encodes a string's UTF-8 bytes.
    public static func encode(_ string: String) -> String { encode(Array(string.utf8)) }

    /// Decodes text, or returns `nil` when it is not base64url (a stray character, or an impossible length).
    public static func decode(_ text: some Collection<UInt8>) -> [UInt8]? {
        var bytes = Array(text)
        while bytes.last == UInt8(ascii: "=") { bytes.removeLast() }
        if bytes.count % 4 == 1 { return nil }
        var output: [UInt8] = []
        output.reserveCapacity(bytes.count * 3 / 4)
        var accumulator: UInt32 = 0
        var bits = 0
        for byte in bytes {
            let value = decodeTable[Int(byte)]
            if value == 0xFF { return nil }
            accumulator = accumulator << 6 | UInt32(value)
            bits += 6
            if bits >= 8 {
                bits -= 8
                output.append(UInt8(truncatingIfNeeded: accumulator >> UInt32(bits)))
            }
        }
        return output
    }
}
