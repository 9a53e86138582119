import Crypto
import HeraldCore

@testable import HeraldWebPush

/// The RFCs' worked examples and the helpers that build malformed bodies from them.
enum AES128GCMFixtures {
    /// Base64url text's octets; a test vector that does not decode is a typo in the test.
    static func bytes(_ text: String) -> [UInt8] {
        guard let bytes = Base64URL.decode(text.utf8) else { preconditionFailure("not base64url: \(text)") }
        return bytes
    }

    // RFC 8291 Appendix A.
    static let plaintext = Array("When I grow up, I want to be a watermelon".utf8)
    static let applicationServerPrivateKey = bytes("yfWPiYE-n46HLnH0KqZOF1fJJU3MYrct3AELtAQ-oRw")
    static let applicationServerPublicKey = bytes(
        "BP4z9KsN6nGRTbVYI_c7VJSPQTBtkgcy27mlmlMoZIIgDll6e3vCYLocInmYWAmS6TlzAC8wEqKK6PBru3jl7A8"
    )
    static let userAgentPrivateKey = bytes("q1dXpw3UpT5VOmu_cf_v6ih07Aems3njxI-JWgLcM94")
    static let userAgentPublicKey = "BCVxsr7N_eNgVRqvHtD0zTZsEc6-VV-JvLexhqUzORcxaOzi6-AYWXvTBHm4bjyPjs7Vd8pZGH6SRpkNtoIAiw4"
    static let salt = bytes("DGv6ra1nlYgDCS1FRnbzlw")
    static let authSecret = "BTBZMqHH6r4Tts7J_aSIgg"
    static let body = bytes(
        "DGv6ra1nlYgDCS1FRnbzlwAAEABBBP4z9KsN6nGRTbVYI_c7VJSPQTBtkgcy27mlmlMoZIIgDll6e3vCYLocInmYWAmS6TlzAC8wEqKK6PBru3jl7A_yl95bQ"
            + "pu6cVPTpK4Mqgkf1CXztLVBSt2Ks3oZwbuwXPXLWyouBWLVWGNWQexSgSxsj_Qulcy4a-fN"
    )

    /// The user agent's keys of Appendix A.
    static var userAgentKeys: WebPushSubscriptionKeys {
        WebPushSubscriptionKeys(privateKey: userAgentPrivateKey, authSecret: bytes(authSecret))!
    }

    /// The application server's key of Appendix A.
    static var applicationServerKey: P256.KeyAgreement.PrivateKey {
        try! P256.KeyAgreement.PrivateKey(rawRepresentation: applicationServerPrivateKey)
    }

    // RFC 8188 §3.1: one record, rs 4096, no keyid.
    static let example1Key = bytes("yqdlZ-tYemfogSmv7Ws5PQ")
    static let example1Body = bytes("I1BsxtFttlv3u_Oo94xnmwAAEAAA-NAVub2qFgBEuQKRapoZu-IxkIva3MEB1PD-ly8Thjg")
    // RFC 8188 §3.2: two records, rs 25, keyid "a1", one octet of padding in the first record.
    static let example2Key = bytes("BO3ZVPxUlnLORbVGMpbT1Q")
    static let example2Body = bytes(
        "uNCkWiNYzKTnBN9ji3-qWAAAABkCYTHOG8chz_gnvgOqdGYovxyjuqRyJFjEDyoF1Fvkj6hQPdPHI51OEUKEpgz3SsLWIqS_uA"
    )
    static let walrus = Array("I am the walrus".utf8)

    /// A record sealed with `key` around `plaintext` exactly as given: no delimiter is added (for bad padding).
    static func sealRaw(_ plaintext: [UInt8], key: AES128GCMKey, sequenceNumber: Int = 0) -> [UInt8] {
        let box = try! AES.GCM.seal(
            plaintext,
            using: key.contentEncryptionKey,
            nonce: AES.GCM.Nonce(data: key.nonce(sequenceNumber: sequenceNumber))
        )
        return Array(box.ciphertext) + Array(box.tag)
    }

    /// The Appendix A body with its one record replaced by `records`, sealed with the message's own key.
    static func appendixABody(records: (AES128GCMKey) -> [UInt8], recordSize: UInt32 = 4096) -> [UInt8] {
        let header = AES128GCMHeader(salt: salt, recordSize: recordSize, keyID: applicationServerPublicKey)
        let key = AES128GCMKey(inputKeyingMaterial: bytes("S4lYMb_L0FxCeq0WhDx813KgSYqU26kOyzWUdsXYyrg"), salt: salt)
        return header.encoded + records(key)
    }
}

/// A deterministic generator (SplitMix64), so that a failing random case is the same on the next run.
struct SeededGenerator: RandomNumberGenerator {
    var state: UInt64

    mutating func next() -> UInt64 {
        state &+= 0x9E37_79B9_7F4A_7C15
        var value = state
        value = (value ^ (value >> 30)) &* 0xBF58_476D_1CE4_E5B9
        value = (value ^ (value >> 27)) &* 0x94D0_49BB_1331_11EB
        return value ^ (value >> 31)
    }
}
