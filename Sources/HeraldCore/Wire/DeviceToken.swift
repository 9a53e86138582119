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
        let utf8 = hex.utf8
        guard Self.hexLengthRange.contains(utf8.count), utf8.count % 2 == 0 else { return nil }
        var folded = [UInt8]()
        folded.reserveCapacity(utf8.count)
        for byte in utf8 {
            switch byte {
            case UInt8(ascii: "0")...UInt8(ascii: "9"), UInt8(ascii: "a")...UInt8(ascii: "f"):
                folded.append(byte)
            case UInt8(ascii: "A")...UInt8(ascii: "F"):
                folded.append(byte + 32)
            default:
                return nil
            }
        }
        self.hex = String(decoding: folded, as: UTF8.self)
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
