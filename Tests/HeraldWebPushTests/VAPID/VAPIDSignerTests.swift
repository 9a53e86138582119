import Crypto
import HeraldCore
import HeraldTestTiers
import HeraldWebPush
import Testing

/// VAPID signing (RFC 8292), the sender's side: what ``VAPIDSigner`` signs is what ``VAPIDVerifier`` takes, for the
/// right origin and key only.
@Suite("VAPID: signing", .tier(.unit))
struct VAPIDSignerTests {
    static let now: Int64 = 1_790_000_000
    static let endpoint = "https://web.push.apple.com/QGuQyavXutnMzHELqVzJg2/a1b2"

    /// A key as `openssl ecparam -name prime256v1 -genkey` writes it (with its EC PARAMETERS block), and its public key.
    static let opensslPEM = """
        -----BEGIN EC PARAMETERS-----
        BggqhkjOPQMBBw==
        -----END EC PARAMETERS-----
        -----BEGIN EC PRIVATE KEY-----
        MHcCAQEEIOX/G7uZtu9/8yyM59KkeFJe9Hl0lUANU3q3Vcb8rDkIoAoGCCqGSM49
        AwEHoUQDQgAEemw3prux4m82Xp8mEQC4De8rFC13Mfm38Pev6j4PzUyEOsz8qFk0
        aZGkf8hT+MdbbdzXDloF+n/65hPAhYRp2Q==
        -----END EC PRIVATE KEY-----
        """
    static let opensslPublicKey = "BHpsN6a7seJvNl6fJhEAuA3vKxQtdzH5t_D3r-o-D81MhDrM_KhZNGmRpH_IU_jHW23c1w5aBfp_-uYTwIWEadk"

    static func verify(
        _ authorization: String,
        key: VAPIDPublicKey,
        origin: String = "https://web.push.apple.com"
    ) -> Result<
        VAPIDIdentity, WebPushRefusal
    > {
        VAPIDVerifier().verify(authorization: authorization, cryptoKey: nil, subscriptionKey: key, origin: origin, nowSeconds: now)
    }

    @Test("signed for an endpoint: verifies for its origin and key, with aud, exp 12 hours ahead and sub")
    func verifies() throws {
        let signer = VAPIDSigner(privateKey: P256.Signing.PrivateKey(), subject: "mailto:ops@example.com")
        let authorization = try signer.authorization(endpoint: Self.endpoint, nowSeconds: Self.now)
        #expect(authorization.hasPrefix("vapid t="))
        #expect(authorization.hasSuffix(", k=\(signer.publicKey.base64URL)"))
        let identity = try Self.verify(authorization, key: signer.publicKey).get()
        #expect(identity.audience == "https://web.push.apple.com")
        #expect(identity.expiration == Double(Self.now + 12 * 3600))
        #expect(identity.subject == "mailto:ops@example.com")
        #expect(identity.key == signer.publicKey)
    }

    @Test("refused for another subscription's key, another push service, and a key it was not signed with")
    func refusedElsewhere() throws {
        let signer = VAPIDSigner(privateKey: P256.Signing.PrivateKey(), subject: "mailto:ops@example.com")
        let other = VAPIDSigner(privateKey: P256.Signing.PrivateKey(), subject: "mailto:ops@example.com")
        let authorization = try signer.authorization(endpoint: Self.endpoint, nowSeconds: Self.now)
        #expect(Self.verify(authorization, key: other.publicKey).failure?.rule == .vapidKeyMismatch)
        #expect(Self.verify(authorization, key: signer.publicKey, origin: "https://fcm.googleapis.com").failure?.rule == .vapidAudience)
        // The other key's k with this key's signature: the signature does not verify.
        let forged = other.authorization(token: signer.token(audience: "https://web.push.apple.com", expiration: Self.now + 60))
        #expect(Self.verify(forged, key: other.publicKey).failure?.rule == .vapidBadSignature)
    }

    @Test("a subject Apple refuses is signed as given, and the verifier explains it")
    func subjectAsGiven() throws {
        let signer = VAPIDSigner(privateKey: P256.Signing.PrivateKey(), subject: "mailto:dev@localhost")
        let authorization = try signer.authorization(endpoint: Self.endpoint, nowSeconds: Self.now)
        let refusal = Self.verify(authorization, key: signer.publicKey).failure
        #expect(refusal?.rule == .vapidSubjectAtLocalhost)
        #expect(refusal?.subject == "mailto:dev@localhost")
    }

    @Test("the lifetime: 24 hours verifies, more is not signed, nor 0")
    func lifetime() throws {
        let signer = VAPIDSigner(privateKey: P256.Signing.PrivateKey(), subject: "https://example.com/contact")
        let longest = try signer.authorization(endpoint: Self.endpoint, nowSeconds: Self.now, lifetimeSeconds: 24 * 3600)
        #expect(try Self.verify(longest, key: signer.publicKey).get().expiration == Double(Self.now + 24 * 3600))
        #expect(throws: VAPIDSignerError.invalidLifetime) {
            try signer.authorization(endpoint: Self.endpoint, nowSeconds: Self.now, lifetimeSeconds: 24 * 3600 + 1)
        }
        #expect(throws: VAPIDSignerError.invalidLifetime) {
            try signer.authorization(endpoint: Self.endpoint, nowSeconds: Self.now, lifetimeSeconds: 0)
        }
        let expired = signer.authorization(token: signer.token(audience: "https://web.push.apple.com", expiration: Self.now - 3600))
        #expect(Self.verify(expired, key: signer.publicKey).failure?.rule == .vapidExpired)
    }

    @Test("keys: openssl's SEC 1 PEM with its parameters, PKCS #8 PEM, raw; anything else is invalidKey")
    func keys() throws {
        let openssl = try VAPIDSigner(pemRepresentation: Self.opensslPEM, subject: "mailto:ops@example.com")
        #expect(openssl.publicKey.base64URL == Self.opensslPublicKey)
        let key = P256.Signing.PrivateKey()
        let pkcs8 = try VAPIDSigner(pemRepresentation: key.pemRepresentation, subject: "mailto:ops@example.com")
        let raw = try VAPIDSigner(rawRepresentation: Array(key.rawRepresentation), subject: "mailto:ops@example.com")
        #expect(pkcs8.publicKey == raw.publicKey)
        #expect(raw.publicKey.rawRepresentation == Array(key.publicKey.x963Representation))
        let p384 = P384.Signing.PrivateKey().pemRepresentation
        for text in ["", "not a key", p384, String(Self.opensslPEM.dropLast(40))] {
            #expect(throws: VAPIDSignerError.invalidKey) { try VAPIDSigner(pemRepresentation: text, subject: "mailto:ops@example.com") }
        }
        #expect(throws: VAPIDSignerError.invalidKey) { try VAPIDSigner(rawRepresentation: [UInt8](repeating: 0, count: 32), subject: "x") }
        #expect(throws: VAPIDSignerError.invalidKey) { try VAPIDSigner(rawRepresentation: [UInt8](repeating: 1, count: 31), subject: "x") }
    }

    @Test(
        "the origin of an endpoint: scheme and host in lower case, a default port dropped, anything else nil",
        arguments: [
            ("https://web.push.apple.com/abc", "https://web.push.apple.com"),
            ("HTTPS://Web.Push.Apple.com:443/abc?x#y", "https://web.push.apple.com"),
            ("http://127.0.0.1:2195/push/abc", "http://127.0.0.1:2195"),
            ("http://localhost:80", "http://localhost"),
            ("https://[::1]:2197/push/x", "https://[::1]:2197"),
            ("ftp://example.com/x", nil), ("https:///x", nil), ("https://user@example.com/x", nil), ("example.com/x", nil),
            ("https://exa mple.com/x", nil), ("https://example.com:99999/x", nil), ("", nil),
        ] as [(String, String?)]
    )
    func origin(endpoint: String, expected: String?) {
        #expect(VAPIDSigner.origin(ofEndpoint: endpoint) == expected)
    }

    @Test("an endpoint that is no URL is not signed for")
    func badEndpoint() {
        let signer = VAPIDSigner(privateKey: P256.Signing.PrivateKey(), subject: "mailto:ops@example.com")
        #expect(throws: VAPIDSignerError.invalidEndpoint) { try signer.authorization(endpoint: "web.push.apple.com/x", nowSeconds: Self.now) }
    }
}
