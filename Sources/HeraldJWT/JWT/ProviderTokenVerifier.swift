import HeraldCore
import Synchronization

/// Verifies provider tokens against the registered signing keys, with a cache so the hot path costs a lookup.
///
/// One verifier serves every connection of a gateway; it is safe to call from several event-loop threads (its keys
/// and cache live behind a `Mutex`, and the expensive ECDSA check runs outside the lock). The cache maps a token's
/// text to its verified identity, so a token is verified once however many requests carry it; `iat` is still
/// checked against the caller's `now` on every call, cached or not.
///
/// Rule order (spec §A.5 "When each error fires", §A.7): parse (`InvalidProviderToken` for a bad scheme, a malformed
/// JWT, `alg` ≠ `ES256`, no `kid`/`iss`/`iat`) → key lookup (unknown `kid`: `InvalidProviderToken`) → signature
/// (`InvalidProviderToken`) → `iss` equals the key's team (`InvalidProviderToken`) → age (`ExpiredProviderToken`)
/// → issued in the future (configurable reason).
public final class ProviderTokenVerifier: Sendable {
    /// Limits of token verification.
    public struct Configuration: Sendable, Hashable {
        /// The oldest `iat` accepted, in seconds: "APNs rejects any request whose token contains a timestamp that's
        /// more than one hour old" (spec §A.7). Default 3600.
        public var maximumTokenAge: Int64
        /// How far in the future `iat` may lie, in seconds, to forgive a provider clock running a little fast.
        /// Default 60.
        public var allowedClockSkew: Int64
        /// The reason for a token issued further in the future than ``allowedClockSkew``. Apple documents none
        /// (spec §D.2). Default `InvalidProviderToken`: the token is not valid *yet*, and the common client reaction to
        /// `ExpiredProviderToken` (sign a fresh token with the same fast clock and retry) would loop forever, while
        /// `InvalidProviderToken` stops the client and points at its configuration.
        public var futureTokenReason: APNSReason
        /// How many verified tokens the cache keeps. Default 10 000 (a few MB at most).
        public var cacheCapacity: Int

        /// Creates a configuration; every parameter has Apple's value or a documented default.
        public init(
            maximumTokenAge: Int64 = 3600,
            allowedClockSkew: Int64 = 60,
            futureTokenReason: APNSReason = .invalidProviderToken,
            cacheCapacity: Int = 10_000
        ) {
            self.maximumTokenAge = maximumTokenAge
            self.allowedClockSkew = allowedClockSkew
            self.futureTokenReason = futureTokenReason
            self.cacheCapacity = cacheCapacity
        }
    }

    /// Counters for tests and metrics.
    public struct Statistics: Sendable, Hashable {
        /// Tokens answered from the cache.
        public var cacheHits = 0
        /// Tokens whose signature was checked.
        public var signatureVerifications = 0
        /// Tokens in the cache now.
        public var cachedTokens = 0
    }

    private struct State: Sendable {
        var keys: [String: SigningKey]
        var cache: VerifiedTokenCache
        var statistics = Statistics()
    }

    /// The configuration in force.
    public let configuration: Configuration
    private let state: Mutex<State>

    /// Creates a verifier for a set of keys (a later key with the same ID replaces an earlier one).
    public init(keys: some Sequence<SigningKey> = [], configuration: Configuration = Configuration()) {
        self.configuration = configuration
        var table: [String: SigningKey] = [:]
        for key in keys { table[key.keyID] = key }
        self.state = Mutex(State(keys: table, cache: VerifiedTokenCache(capacity: configuration.cacheCapacity)))
    }

    /// The registered keys, in no particular order.
    public var keys: [SigningKey] { state.withLock { Array($0.keys.values) } }

    /// The key registered under an ID.
    public func key(id keyID: String) -> SigningKey? { state.withLock { $0.keys[keyID] } }

    /// Registers a key, replacing any key with the same ID (and forgetting tokens verified with the old one).
    public func register(_ key: SigningKey) {
        state.withLock { state in
            state.keys[key.keyID] = key
            state.cache.removeAll(keyID: key.keyID)
        }
    }

    /// Removes (revokes) a key; its tokens, cached or not, are refused from now on as `InvalidProviderToken`.
    ///
    /// Apple tells providers to reconnect after revoking a key (spec §A.7, "Revocation"); connections already bound to
    /// the key fail on their next request.
    @discardableResult
    public func removeKey(id keyID: String) -> SigningKey? {
        state.withLock { state in
            state.cache.removeAll(keyID: keyID)
            return state.keys.removeValue(forKey: keyID)
        }
    }

    /// Counters since the verifier was created.
    public var statistics: Statistics {
        state.withLock { state in
            var statistics = state.statistics
            statistics.cachedTokens = state.cache.count
            return statistics
        }
    }

    /// Verifies the token in an `authorization` header value (`bearer <jwt>`, read liberally).
    ///
    /// - Parameters:
    ///   - authorization: the header value, or `nil` when the request has none (`MissingProviderToken`).
    ///   - nowSeconds: the caller's clock, seconds since the UNIX epoch.
    public func verify(authorization: String?, nowSeconds: Int64) -> Result<VerifiedProviderToken, ProviderTokenError> {
        switch BearerAuthorization.token(in: authorization) {
        case .success(let token): verify(token: String(token), nowSeconds: nowSeconds)
        case .failure(let error): .failure(error)
        }
    }

    /// Verifies a token's text (without the `bearer ` scheme).
    public func verify(token: String, nowSeconds: Int64) -> Result<VerifiedProviderToken, ProviderTokenError> {
        let cached = state.withLock { state in
            let hit = state.cache.lookUp(token)
            if hit != nil { state.statistics.cacheHits += 1 }
            return hit
        }
        if let cached { return checkTime(cached, nowSeconds: nowSeconds) }

        let parsed: ProviderToken
        do {
            parsed = try ProviderToken(parsing: token)
        } catch {
            return .failure(error)
        }
        guard let key = self.key(id: parsed.keyID) else { return .failure(.unknownKey) }
        let signatureIsValid = parsed.hasValidSignature(for: key.publicKey)
        state.withLock { $0.statistics.signatureVerifications += 1 }
        guard signatureIsValid else { return .failure(.badSignature) }
        guard parsed.teamID == key.teamID else { return .failure(.teamMismatch) }

        let identity = VerifiedProviderToken(token: token, key: key, issuedAt: parsed.issuedAt)
        state.withLock { state in
            // Cache only if the key was not replaced or removed while the signature was being checked.
            if state.keys[key.keyID] == key { state.cache.insert(identity) }
        }
        return checkTime(identity, nowSeconds: nowSeconds)
    }

    /// The time rules, applied on every use of a token (spec §A.7, "Lifetime").
    private func checkTime(_ identity: VerifiedProviderToken, nowSeconds: Int64) -> Result<VerifiedProviderToken, ProviderTokenError> {
        // "If the value in the iat field is more than one hour old, APNs rejects any notifications containing the
        // token, returning an ExpiredProviderToken (403) error" (spec §A.5).
        if nowSeconds - identity.issuedAt > configuration.maximumTokenAge { return .failure(.expired) }
        // A future `iat` is UNCONFIRMED (spec §D.2); see `Configuration.futureTokenReason`.
        if identity.issuedAt - nowSeconds > configuration.allowedClockSkew {
            return .failure(ProviderTokenError.issuedInFuture.withReason(configuration.futureTokenReason))
        }
        return .success(identity)
    }
}
