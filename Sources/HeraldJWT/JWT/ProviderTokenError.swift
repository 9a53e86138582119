import HeraldCore

/// Why a provider token (the JWT in `authorization: bearer …`) was refused, with the APNs reason to answer.
///
/// Callers match with `==` against the static members (`error == .expired`); the set can grow without breaking
/// them. The reason travels with the error because one case (a token issued in the future) has a configurable one.
public struct ProviderTokenError: Error, Hashable, Sendable, CustomStringConvertible {
    private enum Code: Hashable, Sendable {
        case missing
        case malformedAuthorization
        case malformedToken
        case unsupportedAlgorithm
        case missingKeyID
        case missingIssuer
        case missingIssuedAt
        case unknownKey
        case teamMismatch
        case badSignature
        case expired
        case issuedInFuture
    }

    private let code: Code

    /// The APNs reason the gateway answers with (status 403, spec §A.5).
    public let reason: APNSReason

    private init(_ code: Code, _ reason: APNSReason) {
        self.code = code
        self.reason = reason
    }

    /// No `authorization` header, an empty one, or `bearer` with no token: `MissingProviderToken` (spec §A.5).
    public static let missing = Self(.missing, .missingProviderToken)
    /// The header is not `bearer <token>`: `InvalidProviderToken`.
    public static let malformedAuthorization = Self(.malformedAuthorization, .invalidProviderToken)
    /// Not three base64url parts of JSON objects, or too long: `InvalidProviderToken`.
    public static let malformedToken = Self(.malformedToken, .invalidProviderToken)
    /// `alg` is not `ES256` (including `none` and a missing `alg`): `InvalidProviderToken` (spec §A.7, [S39]).
    public static let unsupportedAlgorithm = Self(.unsupportedAlgorithm, .invalidProviderToken)
    /// The header has no `kid`: `InvalidProviderToken`.
    public static let missingKeyID = Self(.missingKeyID, .invalidProviderToken)
    /// The claims have no `iss`: `InvalidProviderToken`.
    public static let missingIssuer = Self(.missingIssuer, .invalidProviderToken)
    /// The claims have no usable `iat`: `InvalidProviderToken`.
    public static let missingIssuedAt = Self(.missingIssuedAt, .invalidProviderToken)
    /// `kid` names no key Herald knows: `InvalidProviderToken` (spec §A.5, "bad signature or unknown key").
    public static let unknownKey = Self(.unknownKey, .invalidProviderToken)
    /// `iss` is not the team that owns the key: `InvalidProviderToken`.
    public static let teamMismatch = Self(.teamMismatch, .invalidProviderToken)
    /// The ES256 signature does not verify: `InvalidProviderToken` (spec §A.5).
    public static let badSignature = Self(.badSignature, .invalidProviderToken)
    /// `iat` is more than the maximum age (one hour) old: `ExpiredProviderToken` (spec §A.5, §A.7).
    public static let expired = Self(.expired, .expiredProviderToken)
    /// `iat` lies further in the future than the allowed clock skew (reason configurable; see
    /// ``ProviderTokenVerifier/Configuration/futureTokenReason``).
    public static let issuedInFuture = Self(.issuedInFuture, .invalidProviderToken)

    /// The same error answered with another reason.
    func withReason(_ reason: APNSReason) -> Self { Self(code, reason) }

    /// Errors are equal when they are the same case, whatever reason was configured.
    public static func == (lhs: Self, rhs: Self) -> Bool { lhs.code == rhs.code }

    /// Hashes the case only, consistent with `==`.
    public func hash(into hasher: inout Hasher) { hasher.combine(code) }

    /// The case and its reason, for logs.
    public var description: String { "ProviderTokenError.\(code) (\(reason))" }
}
