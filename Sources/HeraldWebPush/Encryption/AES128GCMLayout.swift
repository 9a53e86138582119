/// An `aes128gcm` body's shape, read without a key: its header and where each record lies (RFC 8188 §2).
///
/// Every record but the last is `rs` octets; the last is 17 to `rs` octets (a 16-octet tag and at least the padding
/// delimiter). The count follows from the lengths alone, so a body over the rules' limits is refused before any
/// decryption, and the push service can refuse a malformed body without the subscriber's key.
public struct AES128GCMLayout: Hashable, Sendable {
    /// The length of an AES-GCM tag, the smallest overhead of a record.
    public static let tagLength = 16

    /// The content coding header.
    public let header: AES128GCMHeader
    /// The body's length, header included.
    public let bodyLength: Int
    /// How many records follow the header.
    public let recordCount: Int

    /// The layout of `body`, checked against `rules`.
    ///
    /// - Throws: ``AES128GCMError/bodyTooLarge`` first, then the header's errors (``AES128GCMHeader/init(parsing:rules:)``),
    ///   ``AES128GCMError/noRecords``, ``AES128GCMError/tooManyRecords`` or ``AES128GCMError/truncatedRecord``.
    public init(parsing body: some Collection<UInt8>, rules: AES128GCMRules) throws(AES128GCMError) {
        let bodyLength = body.count
        guard bodyLength <= rules.maximumBodySize else {
            throw AES128GCMError.bodyTooLarge.saying("the body is \(bodyLength) octets, above the limit of \(rules.maximumBodySize)")
        }
        let header = try AES128GCMHeader(parsing: body, rules: rules)
        let recordsLength = bodyLength - header.encodedLength
        guard recordsLength > 0 else { throw .noRecords }
        let recordSize = Int(header.recordSize)
        let recordCount = (recordsLength + recordSize - 1) / recordSize
        guard recordCount <= rules.maximumRecordCount else {
            throw AES128GCMError.tooManyRecords.saying(
                "\(recordsLength) octets of records of \(recordSize) make \(recordCount) records; at most \(rules.maximumRecordCount) allowed"
                    + (rules.keyID == .uncompressedP256Point ? " (RFC 8291 §4)" : "")
            )
        }
        let lastLength = recordsLength - (recordCount - 1) * recordSize
        guard lastLength > Self.tagLength else {
            throw AES128GCMError.truncatedRecord.saying(
                "the last record is \(lastLength) octets, shorter than a 16-octet tag and the padding delimiter"
            )
        }
        self.header = header
        self.bodyLength = bodyLength
        self.recordCount = recordCount
    }

    /// Where record `index` (from 0) lies in the body.
    public func recordRange(_ index: Int) -> Range<Int> {
        let start = header.encodedLength + index * Int(header.recordSize)
        return start..<min(start + Int(header.recordSize), bodyLength)
    }
}
