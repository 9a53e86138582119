import Crypto

/// One record of an `aes128gcm` body (RFC 8188 §2): `AES-GCM(CEK, nonce(SEQ), data || delimiter || zeros)`, where the
/// delimiter is 0x02 in the last record and 0x01 in the others.
enum AES128GCMRecord {
    /// The delimiter of the last record.
    static let lastDelimiter: UInt8 = 0x02
    /// The delimiter of every other record.
    static let delimiter: UInt8 = 0x01

    /// The sealed record: `data`, its delimiter and `padding` zero octets, then the tag.
    static func seal(_ data: some Collection<UInt8>, padding: Int, isLast: Bool, sequenceNumber: Int, key: AES128GCMKey) -> [UInt8] {
        var plaintext = Array(data)
        plaintext.reserveCapacity(plaintext.count + 1 + padding)
        plaintext.append(isLast ? lastDelimiter : delimiter)
        plaintext += repeatElement(0, count: padding)
        do {
            let nonce = try AES.GCM.Nonce(data: key.nonce(sequenceNumber: sequenceNumber))
            let box = try AES.GCM.seal(plaintext, using: key.contentEncryptionKey, nonce: nonce)
            return Array(box.ciphertext) + Array(box.tag)
        } catch {
            // A 12-octet nonce and a 16-octet key are always accepted.
            preconditionFailure("AES-GCM refused a 12-octet nonce: \(error)")
        }
    }

    /// The data of a sealed record, its delimiter and padding removed.
    ///
    /// - Throws: ``AES128GCMError/authenticationFailed``, ``AES128GCMError/missingPaddingDelimiter`` or
    ///   ``AES128GCMError/invalidPaddingDelimiter``; `record` is at least 17 octets (``AES128GCMLayout``).
    static func open(_ record: ArraySlice<UInt8>, isLast: Bool, sequenceNumber: Int, key: AES128GCMKey) throws(AES128GCMError) -> ArraySlice<UInt8> {
        let tagStart = record.endIndex - AES128GCMLayout.tagLength
        let plaintext: [UInt8]
        do {
            let box = try AES.GCM.SealedBox(
                nonce: AES.GCM.Nonce(data: key.nonce(sequenceNumber: sequenceNumber)),
                ciphertext: record[..<tagStart],
                tag: record[tagStart...]
            )
            plaintext = try Array(AES.GCM.open(box, using: key.contentEncryptionKey))
        } catch {
            throw AES128GCMError.authenticationFailed.saying(
                "record \(sequenceNumber + 1) does not authenticate: another key or auth secret, or altered octets"
            )
        }
        // "the padding delimiter is the last non-zero valued octet of the record" (RFC 8188 §2).
        guard let delimiterIndex = plaintext.lastIndex(where: { $0 != 0 }) else {
            throw AES128GCMError.missingPaddingDelimiter.saying(
                "record \(sequenceNumber + 1) decrypts to \(plaintext.count) zero octets: no padding delimiter (RFC 8188 §2)"
            )
        }
        let expected = isLast ? lastDelimiter : delimiter
        guard plaintext[delimiterIndex] == expected else {
            throw AES128GCMError.invalidPaddingDelimiter.saying(
                "record \(sequenceNumber + 1)\(isLast ? " (the last)" : "") has padding delimiter \(plaintext[delimiterIndex]), not \(expected) (RFC 8188 §2)"
            )
        }
        return plaintext[..<delimiterIndex]
    }
}
