import Crypto
import Foundation
import HeraldCore
import HeraldWebPush

/// A fixed application server key, JWTs signed with it, and the `Authorization` values that carry them.
enum VAPIDFixtures {
    /// The application server's key (a fixed test scalar, not a secret).
    static let privateKey = signingKey(seed: 0x5A)
    /// Another application server's key.
    static let otherPrivateKey = signingKey(seed: 0x7C)

    static let key = VAPIDPublicKey(rawRepresentation: privateKey.publicKey.x963Representation)!
    static let otherKey = VAPIDPublicKey(rawRepresentation: otherPrivateKey.publicKey.x963Representation)!

    /// "Now" for every check: 2026-09-21.
    static let now: Int64 = 1_790_000_000
    /// The push service's origin the subscriptions' endpoints name.
    static let origin = "https://web.push.apple.com"

    static let header = #"{"typ":"JWT","alg":"ES256"}"#

    /// Claims as JSON text; `exp` is JSON text too (so a test can send a fraction or a string).
    static func claims(aud: String = origin, exp: String = String(now + 12 * 3600), sub: String = "mailto:ops@example.com") -> String {
        #"{"aud":\#(JSONString.quoted(aud)),"exp":\#(exp),"sub":\#(JSONString.quoted(sub))}"#
    }

    /// A JWT of `header` and `claims`, signed (r‖s) by `signer`.
    static func token(header: String = header, claims: String = claims(), signer: P256.Signing.PrivateKey = privateKey) -> String {
        let input = Base64URL.encode(header) + "." + Base64URL.encode(claims)
        let signature = try! signer.signature(for: Data(input.utf8))
        return input + "." + Base64URL.encode(signature.rawRepresentation)
    }

    /// `token` with its claims part replaced by `claims` and its signature kept.
    static func replacingClaims(of token: String, with claims: String) -> String {
        var parts = token.split(separator: ".", omittingEmptySubsequences: false).map(String.init)
        parts[1] = Base64URL.encode(claims)
        return parts.joined(separator: ".")
    }

    /// `vapid t=<token>, k=<key>`.
    static func authorization(token: String = token(), key: VAPIDPublicKey = key) -> String {
        "vapid t=\(token), k=\(key.base64URL)"
    }

    /// Verifies with Herald's default policy against the fixture's subscription key, origin and time.
    static func verify(
        _ authorization: String?,
        cryptoKey: String? = nil,
        policy: WebPushPolicy = WebPushPolicy(),
        subscriptionKey: VAPIDPublicKey = key
    ) -> Result<VAPIDIdentity, WebPushRefusal> {
        VAPIDVerifier(policy: policy).verify(
            authorization: authorization,
            cryptoKey: cryptoKey,
            subscriptionKey: subscriptionKey,
            origin: origin,
            nowSeconds: now
        )
    }

    private static func signingKey(seed: UInt8) -> P256.Signing.PrivateKey {
        try! P256.Signing.PrivateKey(rawRepresentation: [UInt8](repeating: 0, count: 16) + [UInt8](repeating: seed, count: 16))
    }
}

extension Result {
    /// The failure, or `nil` on success.
    var failure: Failure? {
        if case .failure(let error) = self { return error }
        return nil
    }
}
