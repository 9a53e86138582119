import Crypto
import HeraldCore

/// VAPID, the application server's side (RFC 8292): a P-256 signing key and a contact make the
/// `Authorization: vapid t=<JWT>, k=<key>` header that ``VAPIDVerifier`` checks.
///
/// The JWT is `{"typ":"JWT","alg":"ES256"}` with the claims `aud` (the push service's origin, taken from the
/// subscription's endpoint), `exp` and `sub`, signed in the JWS form `r‖s` (RFC 7518 §3.4). The subject is signed as
/// given: a sender that breaks Apple's rules for `sub` (``VAPIDSubject``) gets the push service's refusal, which is
/// how that refusal is tested.
public struct VAPIDSigner: Sendable {
    /// How long a token holds by default: 12 hours, as pywebpush writes it, half of the 24 hours Apple takes at most.
    public static let defaultLifetimeSeconds: Int64 = 12 * 3600
    /// The longest lifetime signed: Apple refuses an `exp` more than 24 hours ahead (spec §A.12).
    public static let maximumLifetimeSeconds: Int64 = 24 * 3600

    /// The application server's private key.
    public let privateKey: P256.Signing.PrivateKey
    /// The `sub` claim: the sender's contact, `mailto:` or `https:`.
    public let subject: String

    /// A signer with `privateKey` for `subject`.
    public init(privateKey: P256.Signing.PrivateKey, subject: String) {
        self.privateKey = privateKey
        self.subject = subject
    }

    /// A signer with a PEM key: SEC 1 (`BEGIN EC PRIVATE KEY`, as `openssl ecparam -genkey` writes it, with or without
    /// its `EC PARAMETERS` block) or PKCS #8 (`BEGIN PRIVATE KEY`, a `.p8` file).
    ///
    /// - Throws: ``VAPIDSignerError/invalidKey`` when the text holds no P-256 private key.
    public init(pemRepresentation pem: String, subject: String) throws(VAPIDSignerError) {
        let key: P256.Signing.PrivateKey
        do {
            key = try P256.Signing.PrivateKey(pemRepresentation: Self.privateKeyBlock(pem))
        } catch {
            throw VAPIDSignerError.invalidKey.saying("not a P-256 private key in PEM (BEGIN EC PRIVATE KEY or BEGIN PRIVATE KEY)")
        }
        self.init(privateKey: key, subject: subject)
    }

    /// A signer with a raw key: the 32-octet private scalar, as web push libraries store it.
    ///
    /// - Throws: ``VAPIDSignerError/invalidKey`` when the octets are not a P-256 private scalar.
    public init(rawRepresentation bytes: some Collection<UInt8>, subject: String) throws(VAPIDSignerError) {
        let bytes = Array(bytes)
        guard bytes.count == 32, let key = try? P256.Signing.PrivateKey(rawRepresentation: bytes) else {
            throw VAPIDSignerError.invalidKey.saying("a raw P-256 private key is 32 octets of a valid scalar, not these \(bytes.count)")
        }
        self.init(privateKey: key, subject: subject)
    }

    /// The public key, as `k=` carries it and a subscription's `applicationServerKey` holds it.
    public var publicKey: VAPIDPublicKey {
        guard let key = VAPIDPublicKey(rawRepresentation: privateKey.publicKey.x963Representation) else {
            preconditionFailure("a P-256 public key is always a 65-octet uncompressed point")
        }
        return key
    }

    /// The `Authorization` header's value for a push to `endpoint`: `vapid t=<JWT>, k=<key>`, with `aud` the
    /// endpoint's origin and `exp` `lifetimeSeconds` after `nowSeconds`.
    ///
    /// - Throws: ``VAPIDSignerError/invalidEndpoint`` for an endpoint that is not an `https:` or `http:` URL with a
    ///   host; ``VAPIDSignerError/invalidLifetime`` for a lifetime that is not between 1 s and 24 hours.
    public func authorization(
        endpoint: String,
        nowSeconds: Int64,
        lifetimeSeconds: Int64 = defaultLifetimeSeconds
    ) throws(VAPIDSignerError)
        -> String
    {
        guard let audience = Self.origin(ofEndpoint: endpoint) else {
            throw VAPIDSignerError.invalidEndpoint.saying("endpoint \(WebPushRefusal.quoted(endpoint)) is not an https:// or http:// URL with a host")
        }
        guard lifetimeSeconds > 0, lifetimeSeconds <= Self.maximumLifetimeSeconds else {
            throw VAPIDSignerError.invalidLifetime.saying(
                "a VAPID token's lifetime is 1 to \(Self.maximumLifetimeSeconds) s (24 hours), not \(lifetimeSeconds)"
            )
        }
        return authorization(token: token(audience: audience, expiration: nowSeconds + lifetimeSeconds))
    }

    /// `vapid t=<token>, k=<this signer's public key>`.
    public func authorization(token: String) -> String {
        "vapid t=\(token), k=\(publicKey.base64URL)"
    }

    /// A signed JWT with these claims, as given: no rule is applied, so that tests can sign what Apple refuses.
    public func token(audience: String, expiration: Int64) -> String {
        let header = Base64URL.encode(Array(#"{"typ":"JWT","alg":"ES256"}"#.utf8))
        let claims = #"{"aud":\#(JSONString.quoted(audience)),"exp":\#(expiration),"sub":\#(JSONString.quoted(subject))}"#
        let signingInput = header + "." + Base64URL.encode(Array(claims.utf8))
        guard let signature = try? privateKey.signature(for: Array(signingInput.utf8)) else {
            preconditionFailure("P-256 signing with a valid key does not fail")
        }
        return signingInput + "." + Base64URL.encode(Array(signature.rawRepresentation))
    }

    /// The origin of an endpoint URL, `scheme://host[:port]` (RFC 6454), as VAPID's `aud` names it: the scheme and
    /// host in lower case, the port only when it is not the scheme's default; `nil` for anything but an `https:` or
    /// `http:` URL with a host.
    public static func origin(ofEndpoint endpoint: String) -> String? {
        guard endpoint.utf8.count <= 4096, let separator = endpoint.range(of: "://") else { return nil }
        let scheme = endpoint[..<separator.lowerBound].lowercased()
        let authority = endpoint[separator.upperBound...].prefix { $0 != "/" && $0 != "?" && $0 != "#" }
        guard scheme == "https" || scheme == "http", !authority.contains("@") else { return nil }
        var origin = scheme + "://" + authority.lowercased()
        let defaultPort = scheme == "https" ? ":443" : ":80"
        if origin.hasSuffix(defaultPort) { origin.removeLast(defaultPort.count) }
        guard let parsed = VAPIDOrigin(origin), !parsed.host.isEmpty, !origin.contains(where: \.isWhitespace) else { return nil }
        return origin
    }

    /// The private key's PEM block alone: `openssl ecparam -genkey` writes an `EC PARAMETERS` block before it.
    private static func privateKeyBlock(_ pem: String) -> String {
        for label in ["EC PRIVATE KEY", "PRIVATE KEY"] {
            guard let begin = pem.range(of: "-----BEGIN \(label)-----"),
                let end = pem.range(of: "-----END \(label)-----", range: begin.upperBound..<pem.endIndex)
            else { continue }
            return String(pem[begin.lowerBound..<end.upperBound])
        }
        return pem
    }
}

/// Why a VAPID header could not be signed: the key, the endpoint or the lifetime.
///
/// Callers match with `==` against the static members, which compares the kind only; ``description`` says what was
/// given.
public struct VAPIDSignerError: Error, Hashable, Sendable, CustomStringConvertible {
    private enum Code: Hashable, Sendable {
        case invalidKey
        case invalidEndpoint
        case invalidLifetime
    }

    private let code: Code

    /// What was given, in one line.
    public let description: String

    private init(_ code: Code, _ description: String) {
        self.code = code
        self.description = description
    }

    /// The key is not a P-256 private key.
    public static let invalidKey = Self(.invalidKey, "not a P-256 private key")
    /// The endpoint is not an `https:` or `http:` URL with a host.
    public static let invalidEndpoint = Self(.invalidEndpoint, "the endpoint is not an https:// or http:// URL")
    /// The lifetime is not between 1 second and 24 hours.
    public static let invalidLifetime = Self(.invalidLifetime, "the lifetime is not between 1 s and 24 hours")

    /// The same kind of error, saying what was given.
    func saying(_ description: String) -> Self { Self(code, description) }

    /// Errors are equal when they are the same kind, whatever their description.
    public static func == (lhs: Self, rhs: Self) -> Bool { lhs.code == rhs.code }

    /// Hashes the kind only, consistent with `==`.
    public func hash(into hasher: inout Hasher) { hasher.combine(code) }
}
