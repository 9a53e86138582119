import Crypto

/// The content encryption key and nonce of an `aes128gcm` body, derived from the input keying material and the
/// header's salt (RFC 8188 §2.2, §2.3).
///
/// `PRK = HKDF-Extract(salt, IKM)`; `CEK` is the first 16 octets of `HKDF-Expand(PRK, "Content-Encoding: aes128gcm"
/// || 0x00, 16)`; the nonce base the first 12 of `HKDF-Expand(PRK, "Content-Encoding: nonce" || 0x00, 12)`, and record
/// `SEQ`'s nonce is that base XOR `SEQ` as a 96-bit big-endian integer.
public struct AES128GCMKey: Sendable {
    /// `PRK`, for the RFCs' worked examples.
    let pseudorandomKey: [UInt8]
    /// `CEK`.
    let contentEncryptionKey: SymmetricKey
    /// `NONCE`: the first record's nonce.
    let nonceBase: [UInt8]

    private static let contentEncryptionKeyInfo = Array("Content-Encoding: aes128gcm".utf8) + [0]
    private static let nonceInfo = Array("Content-Encoding: nonce".utf8) + [0]

    /// The key for a body with this salt, from the input keying material (for web push, RFC 8291 §3.4's `IKM`).
    public init(inputKeyingMaterial: [UInt8], salt: [UInt8]) {
        let prk = HKDF<SHA256>.extract(inputKeyMaterial: SymmetricKey(data: inputKeyingMaterial), salt: salt)
        pseudorandomKey = Array(prk)
        contentEncryptionKey = HKDF<SHA256>.expand(pseudoRandomKey: prk, info: Self.contentEncryptionKeyInfo, outputByteCount: 16)
        nonceBase = HKDF<SHA256>.expand(pseudoRandomKey: prk, info: Self.nonceInfo, outputByteCount: 12)
            .withUnsafeBytes { Array($0) }
    }

    /// The nonce of record `sequenceNumber` (from 0): the base with the number XORed into its last octets.
    func nonce(sequenceNumber: Int) -> [UInt8] {
        var nonce = nonceBase
        var number = UInt64(sequenceNumber)
        for index in stride(from: 11, through: 4, by: -1) {
            nonce[index] ^= UInt8(truncatingIfNeeded: number)
            number >>= 8
        }
        return nonce
    }

    /// `CEK`'s octets, for the RFCs' worked examples.
    var contentEncryptionKeyBytes: [UInt8] { contentEncryptionKey.withUnsafeBytes { Array($0) } }
}
