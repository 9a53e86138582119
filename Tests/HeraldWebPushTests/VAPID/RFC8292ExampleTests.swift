import HeraldTestTiers
import HeraldWebPush
import Testing

/// RFC 8292 §2.4's example: its JWT (Figure 2) and key (Figure 3), in the `Authorization` header of §3.1's request
/// (Figure 4), without the figures' line wrapping.
@Suite("VAPID: RFC 8292's example", .tier(.unit))
struct RFC8292ExampleTests {
    static let token =
        "eyJ0eXAiOiJKV1QiLCJhbGciOiJFUzI1NiJ9.eyJhdWQiOiJodHRwczovL3B1c2guZXhhbXBsZS5uZXQiLCJleHAiOjE0NTM1MjM3NjgsInN1YiI6Im1haWx0bzpwdXNoQGV4YW1wbGUuY29tIn0."
        + "i3CYb7t4xfxCDquptFOepC9GAu_HLGkMlMuCGSK2rpiUfnK9ojFwDXb1JrErtmysazNjjvW2L9OkSSHzvoD1oA"
    static let key = "BA1Hxzyi1RUM1b5wjxsn7nGxAszw2u61m164i3MrAIxHF6YK5h4SDYic-dRuU_RCPCfA5aq9ojSwk5Y2EmClBPs"
    /// The JWT's `exp`: "valid until 2016-01-21T01:53:25Z" (RFC 8292 §2.4).
    static let expiration: Int64 = 1_453_523_768

    @Test("the header parses: scheme vapid, t the JWT, k the 65-byte key")
    func headerParses() throws {
        let credentials = try VAPIDAuthorization(authorization: "vapid t=\(Self.token), k=\(Self.key)")
        #expect(credentials.scheme == .vapid)
        #expect(credentials.token == Self.token)
        #expect(credentials.key.base64URL == Self.key)
        #expect(credentials.key.rawRepresentation.count == 65)
    }

    @Test("the claims read: aud, exp and sub")
    func claimsRead() throws {
        let token = try VAPIDToken(parsing: Self.token)
        #expect(token.audience == "https://push.example.net")
        #expect(token.expiration == Double(Self.expiration))
        #expect(token.subject == "mailto:push@example.com")
    }

    @Test("the signature verifies with k, and the claims pass an hour before exp")
    func verifies() throws {
        let key = try VAPIDPublicKey(base64URL: Self.key)
        let result = VAPIDVerifier().verify(
            authorization: "vapid t=\(Self.token), k=\(Self.key)",
            cryptoKey: nil,
            subscriptionKey: key,
            origin: "https://push.example.net",
            nowSeconds: Self.expiration - 3600
        )
        let identity = try result.get()
        #expect(identity.subject == "mailto:push@example.com")
        #expect(identity.key == key)
        #expect(identity.scheme == .vapid)
    }

    @Test("a byte changed in the claims breaks the signature")
    func tampered() throws {
        // "exp":1453523768 → "exp":1453523769: the same length in base64url, another signing input.
        let claims = VAPIDFixtures.replacingClaims(
            of: Self.token,
            with: #"{"aud":"https://push.example.net","exp":1453523769,"sub":"mailto:push@example.com"}"#
        )
        let key = try VAPIDPublicKey(base64URL: Self.key)
        let refusal = VAPIDVerifier().verify(
            authorization: "vapid t=\(claims), k=\(Self.key)",
            cryptoKey: nil,
            subscriptionKey: key,
            origin: "https://push.example.net",
            nowSeconds: Self.expiration - 3600
        ).failure
        #expect(refusal?.rule == .vapidBadSignature)
        #expect(refusal?.subject == "mailto:push@example.com")
    }

    @Test("after its exp, the example is refused as expired")
    func expired() throws {
        let key = try VAPIDPublicKey(base64URL: Self.key)
        let refusal = VAPIDVerifier().verify(
            authorization: "vapid t=\(Self.token), k=\(Self.key)",
            cryptoKey: nil,
            subscriptionKey: key,
            origin: "https://push.example.net",
            nowSeconds: Self.expiration + 3600
        ).failure
        #expect(refusal?.rule == .vapidExpired)
        #expect(refusal?.explanation == "VAPID exp 1453523768 is 3600 s in the past")
    }
}
