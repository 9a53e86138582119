/// A device token: the opaque bytes that name one app on one device, written as lowercase hex.
///
/// Apple says tokens are of variable length (spec §A.9), so Herald accepts any even number of hex
/// digits from 16 to 200 and keeps the canonical lowercase form. Uppercase hex is accepted and folded.
public struct DeviceToken: Hashable, Sendable, CustomStringConvertible, Codable {
    /// The token as lowercase hexadecimal digits.
    public let hex: String

    /// The shortest and longest token, in hex digits, that Herald accepts.
    public static let hexLengthRange = 16...200

    /// Parses a token from its hex form; `nil` when it is not an even-length hex string in range.
    public init?(hex: some StringProtocol) {
        // Why: the caller's string type is generic across modules, so iterating it would go through protocol
        // witnesses byte by byte; a native string lends its bytes contiguously (the gateway's hot path).
        let folded = hex.utf8.withContiguousStorageIfAvailable(Self.folded) ?? Array(hex.utf8).withUnsafeBufferPointer(Self.folded)
        guard let folded else { return nil }
        self.hex = folded
    }

    /// The lowercase form of hex digits, or `nil` when they are not an even number of hex digits in range.
    private static func folded(_ utf8: UnsafeBufferPointer<UInt8>) -> String? {
        guard hexLengthRange.contains(utf8.count), utf8.count % 2 == 0 else { return nil }
        for byte in utf8 {
            switch byte {
            case UInt8(ascii: "0")...UInt8(ascii: "9"), UInt8(ascii: "a")...UInt8(ascii: "f"), UInt8(ascii: "A")...UInt8(ascii: "F"):
                continue
            default:
                return nil
            }
        }
        return String(unsafeUninitializedCapacity: utf8.count) { output in
            for (index, byte) in utf8.enumerated() {
                output[index] = byte >= UInt8(ascii: "A") && byte <= UInt8(ascii: "F") ? byte + 32 : byte
            }
            return utf8.count
        }
    }

    /// Makes a token from raw bytes.
    public init(bytes: some Sequence<UInt8>) {
        let digits = Array("0123456789abcdef".utf8)
        var out = [UInt8]()
        for byte in bytes {
            out.append(digits[Int(byte >> 4)])
            out.append(digits[Int(byte & 0x0f)])
        }
        self.hex = String(decoding: out, as: UTF8.self)
    }

    /// A new random 32-byte token, the size Apple issues in practice.
    public static func random() -> DeviceToken {
        var generator = SystemRandomNumberGenerator()
        return DeviceToken(bytes: (0..<32).map { _ in UInt8.random(in: 0...255, using: &generator) })
    }

    public var description: String { hex }

    public init(from decoder: any Decoder) throws {
        let container = try decoder.singleValueContainer()
        let string = try container.decode(String.self)
        guard let token = DeviceToken(hex: string) else {
            throw DecodingError.dataCorruptedError(in: container, debugDescription: "not a device token: \(string)")
        }
        self = token
    }

    public func encode(to encoder: any Encoder) throws {
        var container = encoder.singleValueContainer()
        try container.encode(hex)
    }
}
