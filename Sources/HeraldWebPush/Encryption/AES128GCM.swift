/// The `aes128gcm` content coding (RFC 8188): a header, then records of `rs` octets sealed with AES-128-GCM.
///
/// Web push uses it with a key derived from ECDH (``WebPushSubscriptionKeys``, ``WebPushEncryption``); this is the
/// coding itself, given the input keying material, as RFC 8188's own examples use it.
public enum AES128GCM {
    /// The plaintext of `body`, decrypted with `inputKeyingMaterial`.
    ///
    /// The layout is checked against `rules` first (``AES128GCMLayout``), so a body over the limits costs no
    /// decryption.
    ///
    /// - Throws: an ``AES128GCMError`` that says what was wrong.
    public static func decrypt(_ body: [UInt8], inputKeyingMaterial: [UInt8], rules: AES128GCMRules) throws(AES128GCMError) -> [UInt8] {
        let layout = try AES128GCMLayout(parsing: body, rules: rules)
        return try decrypt(body, layout: layout, key: AES128GCMKey(inputKeyingMaterial: inputKeyingMaterial, salt: layout.header.salt))
    }

    /// The plaintext of `body`, whose layout is already read, with its key.
    static func decrypt(_ body: [UInt8], layout: AES128GCMLayout, key: AES128GCMKey) throws(AES128GCMError) -> [UInt8] {
        var plaintext: [UInt8] = []
        plaintext.reserveCapacity(layout.bodyLength - layout.header.encodedLength)
        for index in 0..<layout.recordCount {
            let isLast = index == layout.recordCount - 1
            plaintext += try AES128GCMRecord.open(body[layout.recordRange(index)], isLast: isLast, sequenceNumber: index, key: key)
        }
        return plaintext
    }

    /// A body holding `plaintext` followed by `padding` zero octets, in as many records of `header.recordSize` as
    /// they need (one when they fit in `recordSize - 17` octets).
    ///
    /// Each record but the last holds `recordSize - 17` octets of the plaintext, then of the padding; the padding
    /// follows each record's delimiter, so a record may hold only padding. `header.recordSize` is at least 18 and
    /// `padding` at least 0 (``WebPushEncryption`` checks both).
    static func encrypt(_ plaintext: [UInt8], padding: Int, header: AES128GCMHeader, key: AES128GCMKey) -> [UInt8] {
        let capacity = Int(header.recordSize) - AES128GCMLayout.tagLength - 1
        let contentLength = plaintext.count + padding
        let recordCount = max(1, (contentLength + capacity - 1) / capacity)
        var body = header.encoded
        body.reserveCapacity(body.count + contentLength + recordCount * (AES128GCMLayout.tagLength + 1))
        for index in 0..<recordCount {
            let start = index * capacity
            let end = min(start + capacity, contentLength)
            let data = plaintext[min(start, plaintext.count)..<min(end, plaintext.count)]
            let recordPadding = (end - start) - data.count
            body += AES128GCMRecord.seal(
                data,
                padding: recordPadding,
                isLast: index == recordCount - 1,
                sequenceNumber: index,
                key: key
            )
        }
        return body
    }
}
