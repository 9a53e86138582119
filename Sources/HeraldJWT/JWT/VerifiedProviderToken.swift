/// A provider token whose signature verified with a known key: the identity the connection rules work on.
///
/// Time is not part of it: ``ProviderTokenVerifier`` rechecks `iat` against the caller's clock on every use.
public struct VerifiedProviderToken: Sendable, Hashable {
    /// The token text (what distinguishes a *new* token on a connection, spec §A.7 "Lifetime").
    public let token: String
    /// The key that signed it.
    public let key: SigningKey
    /// The `iat` claim, seconds since the UNIX epoch.
    public let issuedAt: Int64

    /// The key ID (`kid`).
    public var keyID: String { key.keyID }
    /// The team ID (`iss`, equal to the key's team).
    public var teamID: String { key.teamID }

    /// Creates an identity; ``ProviderTokenVerifier`` is the normal source.
    public init(token: String, key: SigningKey, issuedAt: Int64) {
        self.token = token
        self.key = key
        self.issuedAt = issuedAt
    }
}
