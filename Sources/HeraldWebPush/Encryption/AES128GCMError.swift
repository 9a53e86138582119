/// Why an `aes128gcm` body (RFC 8188) could not be read or decrypted, in one line for the trace.
///
/// Callers match with `==` against the static members (`error == .authenticationFailed`), which compares the kind
/// only; ``description`` says what was found (the lengths, the record, the limit). The set can grow without breaking
/// callers.
public struct AES128GCMError: Error, Hashable, Sendable, CustomStringConvertible {
    private enum Code: Hashable, Sendable {
        case emptyBody
        case bodyTooLarge
        case truncatedHeader
        case recordSizeTooSmall
        case invalidKeyID
        case invalidSenderKey
        case noRecords
        case tooManyRecords
        case truncatedRecord
        case authenticationFailed
        case missingPaddingDelimiter
        case invalidPaddingDelimiter
    }

    private let code: Code

    /// What was wrong, with the numbers that show it.
    public let description: String

    private init(_ code: Code, _ description: String) {
        self.code = code
        self.description = description
    }

    /// The body has no octet.
    public static let emptyBody = Self(.emptyBody, "the body is empty")
    /// The body is longer than the rules allow (``AES128GCMRules/maximumBodySize``), checked before anything else.
    public static let bodyTooLarge = Self(.bodyTooLarge, "the body is larger than the limit")
    /// The body ends inside the header: before its 21 fixed octets, or before the `keyid` that `idlen` announces.
    public static let truncatedHeader = Self(.truncatedHeader, "the body ends inside the content coding header")
    /// `rs` is below 18, the smallest record that holds a tag, a delimiter and one octet (RFC 8188 §2.1).
    public static let recordSizeTooSmall = Self(.recordSizeTooSmall, "the record size is below 18")
    /// Web push rules: the `keyid` is not a 65-octet uncompressed P-256 point (RFC 8291 §4).
    public static let invalidKeyID = Self(.invalidKeyID, "the keyid is not a 65-octet uncompressed P-256 point")
    /// The `keyid` has the shape of a P-256 point but is no point of the curve (RFC 8291 §4).
    public static let invalidSenderKey = Self(.invalidSenderKey, "the keyid is not a point on P-256")
    /// The body ends right after its header. Without a record there is no 0x02 delimiter to show that nothing was cut
    /// off (RFC 8188 §2), and RFC 8291 §4 asks for one record. (The PyPI `http_ece` 1.2.1 encrypts an empty plaintext
    /// this way; `pywebpush` sends no body at all for an empty message.)
    public static let noRecords = Self(.noRecords, "the body has a header and no record")
    /// The body holds more records than the rules allow (web push: one, RFC 8291 §4).
    public static let tooManyRecords = Self(.tooManyRecords, "the body has more records than allowed")
    /// The last record is shorter than 17 octets, a 16-octet tag and the padding delimiter.
    public static let truncatedRecord = Self(.truncatedRecord, "the last record is shorter than 17 octets")
    /// A record's tag does not verify: another key or auth secret, or altered octets.
    public static let authenticationFailed = Self(.authenticationFailed, "a record does not authenticate")
    /// A decrypted record holds only zero octets: no padding delimiter (RFC 8188 §2).
    public static let missingPaddingDelimiter = Self(.missingPaddingDelimiter, "a record has no padding delimiter")
    /// A decrypted record's delimiter is not 0x02 in the last record and 0x01 in the others (RFC 8188 §2).
    public static let invalidPaddingDelimiter = Self(.invalidPaddingDelimiter, "a record has the wrong padding delimiter")

    /// The same kind of error, saying what was found.
    func saying(_ description: String) -> Self { Self(code, description) }

    /// Errors are equal when they are the same kind, whatever their description.
    public static func == (lhs: Self, rhs: Self) -> Bool { lhs.code == rhs.code }

    /// Hashes the kind only, consistent with `==`.
    public func hash(into hasher: inout Hasher) { hasher.combine(code) }
}
