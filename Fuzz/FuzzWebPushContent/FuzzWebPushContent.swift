import Crypto
import FuzzDriver
import HeraldWebPush

/// libFuzzer target: a web push message's body (`aes128gcm`, RFC 8188 and RFC 8291) — the content coding header, the
/// record layout, and decryption by a user agent (HeraldWebPush).
///
/// The input is a body. It is read under the web push rules and under RFC 8188's, then decrypted with a fixed user
/// agent's keys (RFC 8291 Appendix A's, which the seeds are encrypted for) and with RFC 8188 §3.2's key, so mutations
/// of valid seeds reach the records and their padding, not only the header. The same bytes, taken as a plaintext, are
/// then encrypted for those keys with a record size and padding from the first octets, and must decrypt unchanged.
func fuzzWebPushContent(_ bytes: [UInt8]) {
    let manyRecords = AES128GCMRules(keyID: .uncompressedP256Point, maximumRecordCount: 4096, maximumBodySize: 1 << 20)
    for rules in [AES128GCMRules.webPush, .rfc8188(), manyRecords] {
        guard let layout = try? AES128GCMLayout(parsing: bytes, rules: rules) else { continue }
        precondition((1...rules.maximumRecordCount).contains(layout.recordCount), "record count outside the limit")
        precondition(layout.recordRange(0).lowerBound == layout.header.encodedLength, "records do not start after the header")
        precondition(layout.recordRange(layout.recordCount - 1).upperBound == bytes.count, "records do not end with the body")
        precondition(layout.recordRange(layout.recordCount - 1).count > 16, "a last record without room for its tag")
    }
    for rules in [AES128GCMRules.webPush, manyRecords] {
        if let plaintext = try? fuzzKeys.decrypt(bytes, rules: rules) {
            precondition(plaintext.count <= bytes.count - 86 - 17, "a plaintext longer than its body allows")
        }
    }
    _ = try? AES128GCM.decrypt(bytes, inputKeyingMaterial: fuzzRFC8188Key, rules: .rfc8188())

    let recordSize = 18 + Int(bytes.first ?? 0) * 8
    let padding = Int(bytes.dropFirst().first ?? 0) % 64
    guard
        let body = try? WebPushEncryption.encrypt(
            bytes,
            p256dh: fuzzKeys.p256dh,
            auth: fuzzKeys.auth,
            salt: Array(repeating: 0x5A, count: 16),
            senderKey: fuzzSenderKey,
            recordSize: recordSize,
            padding: padding
        )
    else { preconditionFailure("a valid record size and padding refused") }
    let decrypted = try? fuzzKeys.decrypt(body, rules: manyRecords)
    precondition(decrypted == bytes, "an encrypted plaintext does not decrypt unchanged")
}

/// The user agent's keys of RFC 8291 Appendix A (published test values, not secrets).
let fuzzKeys = WebPushSubscriptionKeys(
    privateKey: [
        0xAB, 0x57, 0x57, 0xA7, 0x0D, 0xD4, 0xA5, 0x3E, 0x55, 0x3A, 0x6B, 0xBF, 0x71, 0xFF, 0xEF, 0xEA, 0x28, 0x74, 0xEC, 0x07,
        0xA6, 0xB3, 0x79, 0xE3, 0xC4, 0x8F, 0x89, 0x5A, 0x02, 0xDC, 0x33, 0xDE,
    ],
    authSecret: [0x05, 0x30, 0x59, 0x32, 0xA1, 0xC7, 0xEA, 0xBE, 0x13, 0xB6, 0xCE, 0xC9, 0xFD, 0xA4, 0x88, 0x82]
)!

/// The application server's key of RFC 8291 Appendix A: with it and a fixed salt, every input is encrypted the same way
/// on every run.
let fuzzSenderKey = try! P256.KeyAgreement.PrivateKey(rawRepresentation: [
    0xC9, 0xF5, 0x8F, 0x89, 0x81, 0x3E, 0x9F, 0x8E, 0x87, 0x2E, 0x71, 0xF4, 0x2A, 0xA6, 0x4E, 0x17, 0x57, 0xC9, 0x25, 0x4D,
    0xCC, 0x62, 0xB7, 0x2D, 0xDC, 0x01, 0x0B, 0xB4, 0x04, 0x3E, 0xA1, 0x1C,
])

/// RFC 8188 §3.2's input keying material.
let fuzzRFC8188Key: [UInt8] = [0x04, 0xED, 0xD9, 0x54, 0xFC, 0x54, 0x96, 0x72, 0xCE, 0x45, 0xB5, 0x46, 0x32, 0x96, 0xD3, 0xD5]

@main
enum Main {
    static func main() {
        FuzzDriver.main { start, count in
            fuzzWebPushContent(start.map { Array(UnsafeBufferPointer(start: $0, count: count)) } ?? [])
            return 0
        }
    }
}
