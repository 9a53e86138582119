import Crypto
import Foundation
import HeraldCore

/// A provider authentication token (an ES256 JWT, spec §A.7), parsed but not yet verified.
///
/// Parsing is liberal where real clients differ: `iat` may be a JSON integer, a float or a numeric string, and the
/// signature may be the JWS raw `r‖s` form (64 bytes) or a DER-encoded ECDSA signature. It is strict where APNs is:
/// `alg` must be `ES256` and `kid`, `iss` and `iat` must be present.
public struct ProviderToken: Sendable, Hashable {
    /// The token text, `<header>.<claims>.<signature>`.
    public let text: String
    /// The `kid` header: the 10-character key ID.
    public let keyID: String
    /// The `iss` claim: the 10-character team ID.
    public let teamID: String
    /// The `iat` claim in whole seconds since the UNIX epoch (a fractional value is rounded down).
    public let issuedAt: Int64
    /// The bytes the signature covers: `<header>.<claims>` as sent.
    let signingInput: [UInt8]
    /// The signature bytes after base64url decoding (raw or DER).
    let signatureBytes: [UInt8]

    /// Parses a token (the part after `bearer `).
    ///
    /// - Throws: ``ProviderTokenError/malformedToken``, ``ProviderTokenError/unsupportedAlgorithm``,
    ///   ``ProviderTokenError/missingKeyID``, ``ProviderTokenError/missingIssuer`` or
    ///   ``ProviderTokenError/missingIssuedAt``; all answer `InvalidProviderToken`.
    public init(parsing text: some StringProtocol) throws(ProviderTokenError) {
        let utf8 = Array(text.utf8)
        guard utf8.count <= BearerAuthorization.maximumTokenLength else { throw .malformedToken }
        let parts = utf8.split(separator: UInt8(ascii: "."), omittingEmptySubsequences: false)
        guard parts.count == 3, !parts[0].isEmpty, !parts[1].isEmpty, !parts[2].isEmpty else { throw .malformedToken }
        guard let headerBytes = Base64URL.decode(parts[0]), let claimsBytes = Base64URL.decode(parts[1]),
            let signature = Base64URL.decode(parts[2])
        else { throw .malformedToken }
        guard let header = try? JSONParser.parse(headerBytes).objectValue,
            let claims = try? JSONParser.parse(claimsBytes).objectValue
        else { throw .malformedToken }

        // "APNs supports only the ES256 algorithm" (spec §A.7); `none` and other algorithms are invalid ([S39]).
        guard header["alg"]?.stringValue == "ES256" else { throw .unsupportedAlgorithm }
        guard let keyID = header["kid"]?.stringValue, !keyID.isEmpty else { throw .missingKeyID }
        guard let teamID = claims["iss"]?.stringValue, !teamID.isEmpty else { throw .missingIssuer }
        guard let issuedAt = claims["iat"].flatMap(Self.seconds(from:)) else { throw .missingIssuedAt }

        self.text = String(text)
        self.keyID = keyID
        self.teamID = teamID
        self.issuedAt = issuedAt
        self.signingInput = Array(utf8[..<(parts[1].endIndex)])
        self.signatureBytes = signature
    }

    /// Whether the signature verifies with a public key. Accepts the JWS raw form and, failing that, DER.
    public func hasValidSignature(for publicKey: P256.Signing.PublicKey) -> Bool {
        if signatureBytes.count == 64, let raw = try? P256.Signing.ECDSASignature(rawRepresentation: signatureBytes),
            publicKey.isValidSignature(raw, for: signingInput)
        {
            return true
        }
        // Some clients send the DER (ASN.1 SEQUENCE of two INTEGERs) form that their crypto library produces.
        if signatureBytes.first == 0x30, let der = try? P256.Signing.ECDSASignature(derRepresentation: signatureBytes) {
            return publicKey.isValidSignature(der, for: signingInput)
        }
        return false
    }

    /// Reads `iat` as an integer, a float (rounded down) or a numeric string; `nil` for anything else.
    static func seconds(from value: JSONValue) -> Int64? {
        let number: Double
        switch value {
        case .int(let value):
            number = Double(value)
        case .double(let value):
            number = value
        case .string(let text):
            guard let parsed = Double(text.trimmingCharacters(in: .whitespaces)) else { return nil }
            number = parsed
        default:
            return nil
        }
        guard number.isFinite, abs(number) < 9.0e15 else { return nil }
        return Int64(number.rounded(.down))
    }
}
