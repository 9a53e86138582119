import Crypto
import Foundation
import HeraldCore

extension ProviderToken {
    /// How a signature is written in the token's third part.
    public enum SignatureEncoding: Sendable, Hashable {
        /// JWS's form: the 64 bytes `r‖s` (RFC 7518 §3.4). What APNs clients send and Herald's client uses.
        case raw
        /// The DER `ECDSA-Sig-Value` some clients send by mistake; Herald accepts it, and tests use this to say so.
        case der
    }

    /// Makes a signed token for a key, as a provider would (spec §A.7).
    ///
    /// - Parameters:
    ///   - keyID: the `kid` header.
    ///   - teamID: the `iss` claim.
    ///   - issuedAt: the `iat` claim in seconds since the UNIX epoch; the caller's clock decides it.
    ///   - privateKey: the P-256 key of the `.p8` file.
    ///   - signatureEncoding: ``SignatureEncoding/raw`` unless a test needs another form.
    /// - Returns: the token text to put after `bearer `.
    public static func make(
        keyID: String,
        teamID: String,
        issuedAt: Int64,
        privateKey: P256.Signing.PrivateKey,
        signatureEncoding: SignatureEncoding = .raw
    ) throws -> String {
        try make(
            header: #"{"alg":"ES256","kid":\#(JSONString.quoted(keyID))}"#,
            claims: #"{"iss":\#(JSONString.quoted(teamID)),"iat":\#(issuedAt)}"#,
            privateKey: privateKey,
            signatureEncoding: signatureEncoding
        )
    }

    /// Makes a token from literal header and claims JSON, signed with ES256: for tests that need odd tokens.
    public static func make(
        header: String,
        claims: String,
        privateKey: P256.Signing.PrivateKey,
        signatureEncoding: SignatureEncoding = .raw
    ) throws -> String {
        let signingInput = Base64URL.encode(header) + "." + Base64URL.encode(claims)
        let signature = try privateKey.signature(for: Array(signingInput.utf8))
        switch signatureEncoding {
        case .raw: return signingInput + "." + Base64URL.encode(signature.rawRepresentation)
        case .der: return signingInput + "." + Base64URL.encode(signature.derRepresentation)
        }
    }
}
