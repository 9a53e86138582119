import Foundation
import HeraldCore
import HeraldTestTiers
import HeraldWebPush
import Testing

/// The `Authorization: vapid t=…, k=…` header (RFC 8292 §3) and the draft form, read but not verified.
@Suite("VAPID: the Authorization header", .tier(.unit))
struct VAPIDAuthorizationTests {
    static let token = VAPIDFixtures.token()
    static let key = VAPIDFixtures.key.base64URL

    @Test(
        "the scheme's case, the parameters' order and case, spaces, tabs and quotes are free",
        arguments: [
            "vapid t=\(token), k=\(key)",
            "VAPID t=\(token),k=\(key)",
            "Vapid k=\(key), t=\(token)",
            "  vapid \t t = \(token) ,\t k=\(key)  ",
            "vapid T=\(token), K=\(key)",
            "vapid t=\"\(token)\", k=\"\(key)\"",
            "vapid t=\(token), k=\(key), extra=ignored",
            "vapid ,t=\(token),, k=\(key),",
            // Padding and the standard alphabet in k, as some hand-written senders write it.
            "vapid t=\(token), k=\(Self.standardBase64(VAPIDFixtures.key.rawRepresentation))",
        ]
    )
    func readsLiberally(header: String) throws {
        let credentials = try VAPIDAuthorization(authorization: header)
        #expect(credentials.scheme == .vapid)
        #expect(credentials.token == Self.token)
        #expect(credentials.key == VAPIDFixtures.key)
    }

    @Test("no header, or an empty one, is a missing VAPID")
    func missing() {
        for header in [nil, "", "  \t "] as [String?] {
            #expect(throws: WebPushRefusal.self) { try VAPIDAuthorization(authorization: header) }
            #expect(Self.refusal(header)?.rule == .vapidMissing)
            #expect(Self.refusal(header)?.status == 403)
            #expect(Self.refusal(header)?.reason == .badJwtToken)
        }
    }

    @Test(
        "a malformed header is refused, saying what is wrong",
        arguments: [
            ("Bearer \(token)", "VAPID: Authorization's scheme \"Bearer\" is not vapid (RFC 8292: vapid t=<JWT>, k=<key>)"),
            ("vapid k=\(key)", "VAPID: Authorization has no t= parameter (the JWT)"),
            ("vapid t=\(token)", "VAPID: Authorization has no k= parameter (the public key)"),
            ("vapid t=\(token), t=\(token), k=\(key)", "VAPID: Authorization has \"t=\" twice"),
            ("vapid t=\(token), k=\(key), K=\(key)", "VAPID: Authorization has \"k=\" twice"),
            ("vapid t=, k=\(key)", "VAPID: Authorization's t= is empty"),
            ("vapid t \(token), k=\(key)", "VAPID: Authorization's parameter \"t\" has no ="),
            ("vapid t=\"\(token), k=\(key)", "VAPID: Authorization's parameter \"t\" has an unterminated or escaped quoted string"),
            ("vapid t=\(token) k=\(key)", "VAPID: Authorization's parameter \"t\" is followed by text that is not a separator"),
            ("vapid", "VAPID: Authorization has no t= parameter (the JWT)"),
        ]
    )
    func malformed(header: String, explanation: String) {
        let refusal = Self.refusal(header)
        #expect(refusal?.rule == .vapidMalformedHeader)
        #expect(refusal?.explanation == explanation)
        #expect(refusal?.status == 403)
    }

    @Test(
        "k must be a 65-byte uncompressed point on P-256",
        arguments: [
            ("not*base64", "VAPID k \"not*base64\" is not base64url"),
            (
                Base64URL.encode(Array(VAPIDFixtures.key.rawRepresentation.prefix(64))),
                "VAPID k is 64 bytes, not a 65-byte uncompressed P-256 public key (0x04‖X‖Y)"
            ),
            (
                Base64URL.encode([0x02] + Array(VAPIDFixtures.key.rawRepresentation[1...32])),
                "VAPID k is 33 bytes (a compressed point), not a 65-byte uncompressed P-256 public key (0x04‖X‖Y)"
            ),
            (Base64URL.encode([0x04] + [UInt8](repeating: 1, count: 64)), "VAPID k is 65 bytes but not a point on the P-256 curve"),
            (
                Base64URL.encode([0x05] + Array(VAPIDFixtures.key.rawRepresentation.dropFirst())),
                "VAPID k is 65 bytes, not a 65-byte uncompressed P-256 public key (0x04‖X‖Y)"
            ),
        ]
    )
    func badKey(key: String, explanation: String) {
        let refusal = Self.refusal("vapid t=\(Self.token), k=\(key)")
        #expect(refusal?.rule == .vapidBadKey)
        #expect(refusal?.explanation == explanation)
    }

    @Test("a header over 8 KiB is refused unread; one at 8 KiB is read")
    func headerLimit() throws {
        let base = "vapid t=\(Self.token), k=\(Self.key), pad="
        let atLimit = base + String(repeating: "a", count: VAPIDAuthorization.maximumHeaderLength - base.utf8.count)
        #expect(atLimit.utf8.count == 8192)
        #expect(try VAPIDAuthorization(authorization: atLimit).token == Self.token)
        let refusal = Self.refusal(atLimit + "a")
        #expect(refusal?.rule == .vapidMalformedHeader)
        #expect(refusal?.explanation == "VAPID: Authorization is 8193 bytes, over the 8192-byte limit")
    }

    @Test("at most 8 parameters are read")
    func parameterLimit() throws {
        let six = (1...6).map { "p\($0)=x" }.joined(separator: ", ")
        #expect(try VAPIDAuthorization(authorization: "vapid t=\(Self.token), k=\(Self.key), \(six)").token == Self.token)
        let refusal = Self.refusal("vapid t=\(Self.token), k=\(Self.key), \(six), p7=x")
        #expect(refusal?.explanation == "VAPID: Authorization has more than 8 parameters")
    }

    @Test("the draft form reads the key from Crypto-Key's p256ecdsa, beside dh")
    func draftForm() throws {
        let credentials = try VAPIDAuthorization(
            authorization: "WebPush \(Self.token)",
            cryptoKey: "dh=BDd3_hVL9fZi9Ybo2UUzA284WG5FZR30_95YeZJsiApwXKpNcF1rRPF3foIiBHXRdJI2Qhumhf6_LFTeZaNndIo;p256ecdsa=\(Self.key)"
        )
        #expect(credentials.scheme == .legacyWebPush)
        #expect(credentials.token == Self.token)
        #expect(credentials.key == VAPIDFixtures.key)
    }

    @Test("the draft form without Crypto-Key, without p256ecdsa in it, or with one over 8 KiB, is refused")
    func draftFormWithoutKey() {
        #expect(
            Self.refusal("WebPush \(Self.token)")?.explanation
                == "VAPID: Authorization: WebPush (the draft form) needs Crypto-Key: p256ecdsa=<key>, and there is no Crypto-Key"
        )
        #expect(
            Self.refusal("WebPush \(Self.token)", cryptoKey: "dh=abc")?.explanation == "VAPID: Crypto-Key has no p256ecdsa= (the VAPID public key)"
        )
        #expect(Self.refusal("WebPush \(Self.token)", cryptoKey: "p256ecdsa=AAAA")?.rule == .vapidBadKey)
        #expect(
            Self.refusal("WebPush", cryptoKey: "p256ecdsa=\(Self.key)")?.explanation == "VAPID: Authorization: WebPush must be followed by one JWT"
        )
        let longCryptoKey = "p256ecdsa=\(Self.key);dh=" + String(repeating: "a", count: 8192)
        #expect(
            Self.refusal("WebPush \(Self.token)", cryptoKey: longCryptoKey)?.explanation
                == "VAPID: Crypto-Key is \(longCryptoKey.utf8.count) bytes, over the 8192-byte limit"
        )
    }

    static func refusal(_ header: String?, cryptoKey: String? = nil) -> WebPushRefusal? {
        do {
            _ = try VAPIDAuthorization(authorization: header, cryptoKey: cryptoKey)
            return nil
        } catch {
            return error
        }
    }

    static func standardBase64(_ bytes: [UInt8]) -> String {
        var text = Base64URL.encode(bytes).replacingOccurrences(of: "-", with: "+").replacingOccurrences(of: "_", with: "/")
        while text.utf8.count % 4 != 0 { text += "=" }
        return text
    }
}
