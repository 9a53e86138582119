/// The content coding header that starts an `aes128gcm` body (RFC 8188 §2.1):
/// `salt` (16) · `rs` (uint32, big-endian) · `idlen` (uint8) · `keyid` (`idlen` octets).
///
/// Reading it costs at most 276 octets and no cryptography: the push service uses it to refuse a malformed body
/// before storing it, the user agent before decrypting.
public struct AES128GCMHeader: Hashable, Sendable {
    /// The salt's length.
    public static let saltLength = 16
    /// The smallest valid record size: a 16-octet tag, the delimiter and one octet ("Values smaller than 18 are
    /// invalid", RFC 8188 §2.1).
    public static let minimumRecordSize = 18
    /// The header's length without its `keyid`.
    public static let fixedLength = 21

    /// The salt from which the content encryption key and nonce are derived (RFC 8188 §2.2).
    public var salt: [UInt8]
    /// The record size `rs`: the length of every record but the last, tag included.
    public var recordSize: UInt32
    /// The key identifier; for web push, the application server's public key (RFC 8291 §4).
    public var keyID: [UInt8]

    /// A header with these fields; `salt` must be 16 octets and `keyID` at most 255.
    init(salt: [UInt8], recordSize: UInt32, keyID: [UInt8]) {
        precondition(salt.count == Self.saltLength && keyID.count <= 255, "AES128GCMHeader: salt or keyid of a wrong length")
        self.salt = salt
        self.recordSize = recordSize
        self.keyID = keyID
    }

    /// The header at the start of `bytes`, checked against `rules`; the records start ``encodedLength`` octets in.
    ///
    /// Reads only the header's own octets, whatever the length of `bytes`.
    ///
    /// - Throws: ``AES128GCMError/emptyBody``, ``AES128GCMError/truncatedHeader``,
    ///   ``AES128GCMError/recordSizeTooSmall`` or, under web push rules, ``AES128GCMError/invalidKeyID``.
    public init(parsing bytes: some Collection<UInt8>, rules: AES128GCMRules) throws(AES128GCMError) {
        let fixed = Array(bytes.prefix(Self.fixedLength))
        guard !fixed.isEmpty else { throw .emptyBody }
        guard fixed.count == Self.fixedLength else {
            throw AES128GCMError.truncatedHeader.saying("the body is \(fixed.count) octets, shorter than the 21-octet header")
        }
        let recordSize = fixed[16..<20].reduce(UInt32(0)) { $0 << 8 | UInt32($1) }
        guard recordSize >= Self.minimumRecordSize else {
            throw AES128GCMError.recordSizeTooSmall.saying("record size \(recordSize) is below 18 (RFC 8188 §2.1)")
        }
        let keyIDLength = Int(fixed[20])
        if rules.keyID == .uncompressedP256Point && keyIDLength != 65 {
            throw AES128GCMError.invalidKeyID.saying(
                "the keyid is \(keyIDLength) octets, not the 65-octet P-256 key of the application server (RFC 8291 §4)"
            )
        }
        let keyID = Array(bytes.dropFirst(Self.fixedLength).prefix(keyIDLength))
        guard keyID.count == keyIDLength else {
            throw AES128GCMError.truncatedHeader.saying(
                "idlen is \(keyIDLength) but the body ends \(keyID.count) octets into the keyid"
            )
        }
        if rules.keyID == .uncompressedP256Point && keyID.first != 0x04 {
            throw AES128GCMError.invalidKeyID.saying(
                "the keyid starts 0x\(Self.hex(keyID.first ?? 0)), not 0x04: not an uncompressed P-256 point (RFC 8291 §4)"
            )
        }
        self.init(salt: Array(fixed[0..<16]), recordSize: recordSize, keyID: keyID)
    }

    /// The header's length in octets: where the records start.
    public var encodedLength: Int { Self.fixedLength + keyID.count }

    /// The header's octets.
    public var encoded: [UInt8] {
        var bytes = salt
        bytes.reserveCapacity(encodedLength)
        for shift in stride(from: 24, through: 0, by: -8) { bytes.append(UInt8(truncatingIfNeeded: recordSize >> UInt32(shift))) }
        bytes.append(UInt8(keyID.count))
        bytes += keyID
        return bytes
    }

    /// Two lowercase hexadecimal digits.
    private static func hex(_ byte: UInt8) -> String {
        let digits = Array("0123456789abcdef".utf8)
        return String(decoding: [digits[Int(byte >> 4)], digits[Int(byte & 0x0F)]], as: UTF8.self)
    }
}
