import Crypto
import Foundation
import HeraldCore
import HeraldTestTiers
import HeraldWebPush
import Testing

/// Apple's VAPID rules (spec §A.12): each refusal is `403 BadJwtToken`, with an explanation naming the rule.
@Suite("VAPID: Apple's rules", .tier(.unit))
struct VAPIDVerifierTests {
    @Test("a JWT signed with the subscription's key, for the push service, 12 hours ahead, from a mailto passes")
    func passes() throws {
        let identity = try VAPIDFixtures.verify(VAPIDFixtures.authorization()).get()
        #expect(identity.subject == "mailto:ops@example.com")
        #expect(identity.audience == VAPIDFixtures.origin)
        #expect(identity.expiration == Double(VAPIDFixtures.now + 12 * 3600))
        #expect(identity.key == VAPIDFixtures.key)
    }

    @Test(
        "exp may be an integer, a fraction or a numeric string",
        arguments: ["1790043200", "1790043200.5", "1.7900432e9", "\"1790043200\""]
    )
    func expirationForms(exp: String) throws {
        let token = VAPIDFixtures.token(claims: VAPIDFixtures.claims(exp: exp))
        #expect(try VAPIDFixtures.verify(VAPIDFixtures.authorization(token: token)).get().expiration >= 1_790_043_200)
    }

    @Test("no Authorization header: the JWT is missing")
    func missing() {
        let refusal = VAPIDFixtures.verify(nil).failure
        #expect(refusal?.rule == .vapidMissing)
        #expect(refusal?.status == 403)
        #expect(refusal?.reason.rawValue == "BadJwtToken")
        #expect(refusal?.explanation == "VAPID: no Authorization header")
    }

    @Test("signed with another private key, k the subscription's: the signature does not verify")
    func wrongPrivateKey() {
        let token = VAPIDFixtures.token(signer: VAPIDFixtures.otherPrivateKey)
        let refusal = VAPIDFixtures.verify(VAPIDFixtures.authorization(token: token)).failure
        #expect(refusal?.rule == .vapidBadSignature)
        #expect(refusal?.status == 403)
        #expect(refusal?.explanation == "VAPID JWT signature does not verify with k: the JWT was signed with another private key")
        #expect(refusal?.subject == "mailto:ops@example.com")
    }

    @Test("k is a valid key but not the one the subscription was made with")
    func keyMismatch() {
        let token = VAPIDFixtures.token(signer: VAPIDFixtures.otherPrivateKey)
        let refusal = VAPIDFixtures.verify(VAPIDFixtures.authorization(token: token, key: VAPIDFixtures.otherKey)).failure
        #expect(refusal?.rule == .vapidKeyMismatch)
        #expect(refusal?.status == 403)
        #expect(refusal?.explanation.hasPrefix("VAPID k \(VAPIDFixtures.otherKey.base64URL.prefix(10))…") == true)
        #expect(refusal?.explanation.contains("is not the key the subscription was made with (its applicationServerKey") == true)
        #expect(refusal?.subject == "mailto:ops@example.com")
    }

    @Test("a DER signature, or one of the wrong length, is refused with what it is")
    func signatureForms() throws {
        let unsigned = VAPIDFixtures.token().split(separator: ".").prefix(2).joined(separator: ".")
        let der = try VAPIDFixtures.privateKey.signature(for: Data(unsigned.utf8)).derRepresentation
        let derRefusal = VAPIDFixtures.verify(VAPIDFixtures.authorization(token: unsigned + "." + Base64URL.encode(der))).failure
        #expect(derRefusal?.rule == .vapidBadSignature)
        #expect(derRefusal?.explanation.contains("is DER-encoded") == true)
        let shortRefusal = VAPIDFixtures.verify(VAPIDFixtures.authorization(token: unsigned + "." + Base64URL.encode([1, 2, 3]))).failure
        #expect(shortRefusal?.explanation == "VAPID JWT signature is 3 bytes, not the 64 of ES256's r‖s")
    }

    @Test(
        "aud must be the push service's origin",
        arguments: [
            (
                "https://fcm.googleapis.com",
                "VAPID aud \"https://fcm.googleapis.com\" is not the push service's origin \"https://web.push.apple.com\""
            ),
            (
                "https://web.push.apple.com/",
                "VAPID aud \"https://web.push.apple.com/\" (not an origin: scheme://host[:port] with no path) is not the push service's origin \"https://web.push.apple.com\""
            ),
            ("http://web.push.apple.com", "VAPID aud \"http://web.push.apple.com\" is not the push service's origin \"https://web.push.apple.com\""),
            (
                "https://web.push.apple.com:8443",
                "VAPID aud \"https://web.push.apple.com:8443\" is not the push service's origin \"https://web.push.apple.com\""
            ),
        ]
    )
    func audience(aud: String, explanation: String) {
        let refusal = VAPIDFixtures.verify(VAPIDFixtures.authorization(token: VAPIDFixtures.token(claims: VAPIDFixtures.claims(aud: aud)))).failure
        #expect(refusal?.rule == .vapidAudience)
        #expect(refusal?.explanation == explanation)
        #expect(refusal?.subject == "mailto:ops@example.com")
    }

    @Test("aud matches in any case and with the default port written", arguments: ["HTTPS://Web.Push.Apple.com", "https://web.push.apple.com:443"])
    func audienceForms(aud: String) {
        #expect(throws: Never.self) {
            try VAPIDFixtures.verify(VAPIDFixtures.authorization(token: VAPIDFixtures.token(claims: VAPIDFixtures.claims(aud: aud)))).get()
        }
    }

    @Test("exp in the past is refused; within the minute of leeway it passes")
    func expired() {
        let past = VAPIDFixtures.token(claims: VAPIDFixtures.claims(exp: String(VAPIDFixtures.now - 60)))
        let refusal = VAPIDFixtures.verify(VAPIDFixtures.authorization(token: past)).failure
        #expect(refusal?.rule == .vapidExpired)
        #expect(refusal?.explanation == "VAPID exp 1789999940 is 60 s in the past")
        let justPast = VAPIDFixtures.token(claims: VAPIDFixtures.claims(exp: String(VAPIDFixtures.now - 59)))
        #expect(VAPIDFixtures.verify(VAPIDFixtures.authorization(token: justPast)).failure == nil)
        let strict = WebPushPolicy(clockLeewaySeconds: 0)
        let now = VAPIDFixtures.token(claims: VAPIDFixtures.claims(exp: String(VAPIDFixtures.now)))
        #expect(VAPIDFixtures.verify(VAPIDFixtures.authorization(token: now), policy: strict).failure?.rule == .vapidExpired)
    }

    @Test("exp more than 24 hours ahead is refused; exactly 24 hours passes")
    func tooFar() {
        let day: Int64 = 86_400
        let tooFar = VAPIDFixtures.token(claims: VAPIDFixtures.claims(exp: String(VAPIDFixtures.now + day + 61)))
        let refusal = VAPIDFixtures.verify(VAPIDFixtures.authorization(token: tooFar)).failure
        #expect(refusal?.rule == .vapidExpirationTooFar)
        #expect(refusal?.explanation == "VAPID exp 1790086461 is 86461 s ahead, more than 24 hours (86400 s)")
        let strict = WebPushPolicy(clockLeewaySeconds: 0)
        let justOver = VAPIDFixtures.token(claims: VAPIDFixtures.claims(exp: String(VAPIDFixtures.now + day + 1)))
        #expect(VAPIDFixtures.verify(VAPIDFixtures.authorization(token: justOver), policy: strict).failure?.rule == .vapidExpirationTooFar)
        let exactly = VAPIDFixtures.token(claims: VAPIDFixtures.claims(exp: String(VAPIDFixtures.now + day)))
        #expect(VAPIDFixtures.verify(VAPIDFixtures.authorization(token: exactly), policy: strict).failure == nil)
    }

    @Test(
        "a claim missing or of the wrong type is refused",
        arguments: [
            #"{"exp":1790043200,"sub":"mailto:ops@example.com"}"#,
            #"{"aud":"https://web.push.apple.com","sub":"mailto:ops@example.com"}"#,
            #"{"aud":"https://web.push.apple.com","exp":1790043200}"#,
            #"{"aud":["https://web.push.apple.com"],"exp":1790043200,"sub":"mailto:ops@example.com"}"#,
            #"{"aud":"https://web.push.apple.com","exp":true,"sub":"mailto:ops@example.com"}"#,
            #"{"aud":"https://web.push.apple.com","exp":1790043200,"sub":42}"#,
        ]
    )
    func missingClaim(claims: String) {
        let refusal = VAPIDFixtures.verify(VAPIDFixtures.authorization(token: VAPIDFixtures.token(claims: claims))).failure
        #expect(refusal?.rule == .vapidMissingClaim)
        #expect(refusal?.status == 403)
    }

    @Test(
        "the JWT's header: alg must be ES256, typ (when present) JWT",
        arguments: [
            (#"{"typ":"JWT","alg":"HS256"}"#, "VAPID JWT header's alg \"HS256\" is not ES256"),
            (#"{"typ":"JWT","alg":"none"}"#, "VAPID JWT header's alg \"none\" is not ES256"),
            (#"{"typ":"JWT"}"#, "VAPID JWT header has no alg (it must be ES256)"),
            (#"{"typ":"JWS","alg":"ES256"}"#, "VAPID JWT header's typ is \"JWS\", not \"JWT\""),
        ]
    )
    func algorithm(header: String, explanation: String) {
        let refusal = VAPIDFixtures.verify(VAPIDFixtures.authorization(token: VAPIDFixtures.token(header: header))).failure
        #expect(refusal?.rule == .vapidUnsupportedAlgorithm)
        #expect(refusal?.explanation == explanation)
    }

    @Test("no typ at all passes")
    func noType() throws {
        #expect(
            try VAPIDFixtures.verify(VAPIDFixtures.authorization(token: VAPIDFixtures.token(header: #"{"alg":"ES256"}"#))).get().subject
                == "mailto:ops@example.com"
        )
    }

    @Test(
        "a JWT that is not three base64url parts of JSON objects is refused",
        arguments: [
            ("abc", "VAPID JWT is not three non-empty parts separated by dots (header.claims.signature)"),
            ("a.b.c.d", "VAPID JWT is not three non-empty parts separated by dots (header.claims.signature)"),
            ("a..c", "VAPID JWT is not three non-empty parts separated by dots (header.claims.signature)"),
            ("*.e30.AAAA", "VAPID JWT header is not base64url"),
            ("e30.*.AAAA", "VAPID JWT claims are not base64url"),
            ("e30.e30.*", "VAPID JWT signature is not base64url"),
            ("W10.e30.AAAA", "VAPID JWT header is not a JSON object"),
            ("e30.bnVsbA.AAAA", "VAPID JWT claims is not a JSON object"),
        ]
    )
    func malformedToken(token: String, explanation: String) {
        let refusal = VAPIDFixtures.verify(VAPIDFixtures.authorization(token: token)).failure
        #expect(refusal?.rule == .vapidMalformedToken)
        #expect(refusal?.explanation == explanation)
    }

    @Test("a JWT over 4096 bytes is refused unread")
    func tokenLimit() throws {
        let padding = String(repeating: "x", count: 3200)
        let long = VAPIDFixtures.token(
            claims: #"{"aud":"https://web.push.apple.com","exp":1790043200,"sub":"mailto:ops@example.com","pad":"\#(padding)"}"#
        )
        #expect(long.utf8.count > 4096)
        let refusal = VAPIDFixtures.verify(VAPIDFixtures.authorization(token: long)).failure
        #expect(refusal?.rule == .vapidMalformedToken)
        #expect(refusal?.explanation == "VAPID JWT is \(long.utf8.count) bytes, over the 4096-byte limit")
        let fits = VAPIDFixtures.token(
            claims: #"{"aud":"https://web.push.apple.com","exp":1790043200,"sub":"mailto:ops@example.com","pad":"\#(padding.prefix(2800))"}"#
        )
        #expect(fits.utf8.count <= 4096)
        #expect(VAPIDFixtures.verify(VAPIDFixtures.authorization(token: fits)).failure == nil)
    }

    @Test("at most 16 members are read in the claims and in the header")
    func claimLimit() {
        func claims(extra: Int) -> String {
            let members = (0..<extra).map { #""c\#($0)":\#($0)"# }
            return "{"
                + ([#""aud":"https://web.push.apple.com""#, #""exp":1790043200"#, #""sub":"mailto:ops@example.com""#] + members).joined(
                    separator: ","
                ) + "}"
        }
        #expect(VAPIDFixtures.verify(VAPIDFixtures.authorization(token: VAPIDFixtures.token(claims: claims(extra: 13)))).failure == nil)
        let refusal = VAPIDFixtures.verify(VAPIDFixtures.authorization(token: VAPIDFixtures.token(claims: claims(extra: 14)))).failure
        #expect(refusal?.explanation == "VAPID JWT claims has 17 members, over the limit of 16")
        let header = "{" + (["\"typ\":\"JWT\"", "\"alg\":\"ES256\""] + (0..<15).map { "\"h\($0)\":0" }).joined(separator: ",") + "}"
        let headerRefusal = VAPIDFixtures.verify(VAPIDFixtures.authorization(token: VAPIDFixtures.token(header: header))).failure
        #expect(headerRefusal?.explanation == "VAPID JWT header has 17 members, over the limit of 16")
    }

    @Test("the draft form is refused by default, and verified like the vapid scheme when the policy accepts it")
    func draftForm() throws {
        let cryptoKey = "p256ecdsa=\(VAPIDFixtures.key.base64URL)"
        let refusal = VAPIDFixtures.verify("WebPush \(VAPIDFixtures.token())", cryptoKey: cryptoKey).failure
        #expect(refusal?.rule == .vapidLegacyScheme)
        #expect(refusal?.status == 403)
        let accepting = WebPushPolicy(legacyAuthorization: .accept)
        #expect(try VAPIDFixtures.verify("WebPush \(VAPIDFixtures.token())", cryptoKey: cryptoKey, policy: accepting).get().scheme == .legacyWebPush)
        let localhost = VAPIDFixtures.token(claims: VAPIDFixtures.claims(sub: "mailto:dev@localhost"))
        #expect(VAPIDFixtures.verify("WebPush \(localhost)", cryptoKey: cryptoKey, policy: accepting).failure?.rule == .vapidSubjectAtLocalhost)
    }
}
