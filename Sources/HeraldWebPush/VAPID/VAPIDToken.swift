import Crypto
import HeraldCore

/// A VAPID JWT (RFC 8292 §2), parsed but not yet verified: header `{"typ":"JWT","alg":"ES256"}`, claims `aud`, `exp`
/// and `sub`, and a JWS ES256 signature over `<header>.<claims>`.
///
/// Strict where the standard is: `alg` must be `ES256`, `typ` (when present) `JWT`, and the signature the JWS form,
/// `r‖s` in 64 bytes (RFC 7518 §3.4), not DER. Liberal where clients differ: `exp` may be an integer, a fraction or a
/// numeric string; other claims are ignored. Claims of the wrong type are left `nil` for the verifier to explain.
public struct VAPIDToken: Hashable, Sendable {
    /// The longest token read, in bytes (one from a real library is about 250).
    public static let maximumLength = 4096
    /// The most members read in the JWT's header, and in its claims.
    public static let maximumMembers = 16

    /// The token text.
    public let text: String
    /// The `aud` claim, when it is a string.
    public let audience: String?
    /// The `exp` claim in seconds since the UNIX epoch, when it is a number (or a numeric string).
    public let expiration: Double?
    /// The `sub` claim, when it is a string.
    public let subject: String?
    /// The bytes the signature covers: `<header>.<claims>` as sent.
    let signingInput: [UInt8]
    /// The signature after base64url decoding.
    let signature: [UInt8]

    /// Parses a token.
    ///
    /// - Throws: ``WebPushRefusal/Rule/vapidMalformedToken`` (not three base64url parts of JSON objects, over a limit)
    ///   or ``WebPushRefusal/Rule/vapidUnsupportedAlgorithm`` (`alg` not `ES256`, `typ` not `JWT`).
    public init(parsing text: some StringProtocol) throws(WebPushRefusal) {
        let utf8 = Array(text.utf8)
        guard utf8.count <= Self.maximumLength else {
            throw Self.malformed("is \(utf8.count) bytes, over the \(Self.maximumLength)-byte limit")
        }
        let parts = utf8.split(separator: UInt8(ascii: "."), omittingEmptySubsequences: false)
        guard parts.count == 3, parts.allSatisfy({ !$0.isEmpty }) else {
            throw Self.malformed("is not three non-empty parts separated by dots (header.claims.signature)")
        }
        guard let headerBytes = Base64URL.decode(parts[0]) else { throw Self.malformed("header is not base64url") }
        guard let claimsBytes = Base64URL.decode(parts[1]) else { throw Self.malformed("claims are not base64url") }
        guard let signature = Base64URL.decode(parts[2]) else { throw Self.malformed("signature is not base64url") }
        let header = try Self.object(headerBytes, part: "header")
        let claims = try Self.object(claimsBytes, part: "claims")

        // RFC 8292 §2: "ES256" is the only algorithm; `none` and HMAC would let anyone sign.
        guard let algorithm = header["alg"]?.stringValue else {
            throw WebPushRefusal(rule: .vapidUnsupportedAlgorithm, explanation: "VAPID JWT header has no alg (it must be ES256)")
        }
        guard algorithm == "ES256" else {
            throw WebPushRefusal(
                rule: .vapidUnsupportedAlgorithm,
                explanation: "VAPID JWT header's alg \(WebPushRefusal.quoted(algorithm)) is not ES256"
            )
        }
        if let type = header["typ"], type.stringValue?.uppercased() != "JWT" {
            throw WebPushRefusal(rule: .vapidUnsupportedAlgorithm, explanation: "VAPID JWT header's typ is \(Self.describe(type)), not \"JWT\"")
        }
        self.text = String(text)
        self.audience = claims["aud"]?.stringValue
        self.expiration = claims["exp"].flatMap(Self.seconds(from:))
        self.subject = claims["sub"]?.stringValue
        self.signingInput = Array(utf8[..<parts[1].endIndex])
        self.signature = signature
    }

    /// Whether the signature is a JWS ES256 signature of the signing input by `key`.
    ///
    /// - Returns: `nil` when it verifies; otherwise why not, in a few words for an explanation.
    func signatureProblem(for key: VAPIDPublicKey) -> String? {
        guard signature.count == 64 else {
            if signature.first == 0x30, (try? P256.Signing.ECDSASignature(derRepresentation: signature)) != nil {
                return "is DER-encoded (\(signature.count) bytes); JWS ES256 is r‖s in 64 bytes (RFC 7518 §3.4)"
            }
            return "is \(signature.count) bytes, not the 64 of ES256's r‖s"
        }
        guard let raw = try? P256.Signing.ECDSASignature(rawRepresentation: signature), key.signingKey.isValidSignature(raw, for: signingInput)
        else { return "does not verify with k: the JWT was signed with another private key" }
        return nil
    }

    private static func object(_ bytes: [UInt8], part: String) throws(WebPushRefusal) -> JSONObject {
        guard let value = try? JSONParser.parse(bytes), case .object(let object) = value else {
            throw malformed("\(part) is not a JSON object")
        }
        guard object.count <= maximumMembers else {
            throw malformed("\(part) has \(object.count) members, over the limit of \(maximumMembers)")
        }
        return object
    }

    private static func malformed(_ what: String) -> WebPushRefusal {
        WebPushRefusal(rule: .vapidMalformedToken, explanation: "VAPID JWT " + what)
    }

    /// A JSON value in a few characters, for an explanation.
    static func describe(_ value: JSONValue) -> String {
        switch value {
        case .null: "null"
        case .bool(let value): String(value)
        case .int(let value): String(value)
        case .double(let value): String(value)
        case .string(let value): WebPushRefusal.quoted(value)
        case .array: "an array"
        case .object: "an object"
        }
    }

    /// Reads `exp` as an integer, a fraction or a numeric string; `nil` for anything else or a value no clock reaches.
    private static func seconds(from value: JSONValue) -> Double? {
        let number: Double
        switch value {
        case .int(let value):
            number = Double(value)
        case .double(let value):
            number = value
        case .string(let text):
            guard text.utf8.count <= 32, let parsed = Double(text) else { return nil }
            number = parsed
        default:
            return nil
        }
        guard number.isFinite, abs(number) < 9.0e15 else { return nil }
        return number
    }
}
