import Crypto
import Foundation

/// A provider's private signing key: the `.p8` file Apple hands out, with its key ID and team ID.
///
/// Herald uses it for its own client (`herald send`), for development keys (`herald keys new`) and in tests.
/// The server side only needs ``record(environments:topics:relatedKeyID:)``, the public ``SigningKey``.
public struct PrivateSigningKey: Sendable {
    /// The 10-character key ID.
    public let keyID: String
    /// The 10-character team ID.
    public let teamID: String
    /// The P-256 private key.
    public let privateKey: P256.Signing.PrivateKey

    /// Wraps a private key.
    ///
    /// - Throws: ``CredentialError/invalidKeyID`` or ``CredentialError/invalidTeamID``.
    public init(keyID: String, teamID: String, privateKey: P256.Signing.PrivateKey) throws(CredentialError) {
        guard SigningKey.isWellFormedID(keyID) else { throw CredentialError.invalidKeyID.with(keyID) }
        guard SigningKey.isWellFormedID(teamID) else { throw CredentialError.invalidTeamID.with(teamID) }
        self.keyID = keyID
        self.teamID = teamID
        self.privateKey = privateKey
    }

    /// Reads a `.p8` key: PEM text of a PKCS#8 `PRIVATE KEY` (Apple's form) or a SEC 1 `EC PRIVATE KEY`.
    ///
    /// - Throws: ``CredentialError/invalidPrivateKey`` for anything else (including non-P-256 keys).
    public init(keyID: String, teamID: String, p8: String) throws(CredentialError) {
        let key: P256.Signing.PrivateKey
        do {
            key = try P256.Signing.PrivateKey(pemRepresentation: p8)
        } catch {
            throw CredentialError.invalidPrivateKey.with("\(error)")
        }
        try self.init(keyID: keyID, teamID: teamID, privateKey: key)
    }

    /// Reads a `.p8` file.
    ///
    /// - Throws: ``CredentialError/missingFile`` when it cannot be read, else as ``init(keyID:teamID:p8:)``.
    public init(keyID: String, teamID: String, contentsOf file: URL) throws(CredentialError) {
        let text: String
        do {
            text = try String(contentsOf: file, encoding: .utf8)
        } catch {
            throw CredentialError.missingFile.with(file.path)
        }
        try self.init(keyID: keyID, teamID: teamID, p8: text)
    }

    /// Generates a new P-256 key for development, with a random key ID unless one is given.
    public static func generate(teamID: String, keyID: String = SigningKey.randomID()) throws(CredentialError) -> Self {
        try Self(keyID: keyID, teamID: teamID, privateKey: P256.Signing.PrivateKey())
    }

    /// The key as `.p8` text: PEM of PKCS#8 (`-----BEGIN PRIVATE KEY-----`), as Apple's downloads are.
    public var p8: String { privateKey.pemRepresentation }

    /// Writes the `.p8` file with permissions 0600.
    public func write(p8To file: URL) throws(CredentialError) {
        try PEMFile.write(p8, to: file, isSecret: true)
    }

    /// The public record a Herald server registers for this key.
    public func record(
        environments: EnvironmentScope = .both,
        topics: Set<String> = [],
        relatedKeyID: String? = nil
    ) throws(CredentialError) -> SigningKey {
        try SigningKey(
            keyID: keyID,
            teamID: teamID,
            environments: environments,
            topics: topics,
            relatedKeyID: relatedKeyID,
            publicKey: privateKey.publicKey
        )
    }

    /// Signs a provider token (ES256 JWT) issued at `issuedAt` seconds since the UNIX epoch (spec §A.7).
    ///
    /// Apple asks providers to refresh a token no more than once every 20 minutes and no less than once every 60:
    /// callers should reuse the result for that long rather than sign per request.
    public func makeToken(issuedAt: Int64, signatureEncoding: ProviderToken.SignatureEncoding = .raw) -> String {
        // Signing with a valid P-256 key over bytes cannot fail; a failure is an internal error of the crypto library.
        do {
            return try ProviderToken.make(
                keyID: keyID,
                teamID: teamID,
                issuedAt: issuedAt,
                privateKey: privateKey,
                signatureEncoding: signatureEncoding
            )
        } catch {
            fatalError("ES256 signing failed: \(error)")
        }
    }
}
