import HeraldCore
import Logging
import Synchronization

/// The hot-path lookups both stores answer from a ``RegistryCache``: tokens, signing keys and apps' teams from memory,
/// with the same freshness rules (``RegistryCache``); each store says only how it reads its registry
/// (``refreshRegistry(alsoFetching:)``: SQLite reads its file, PostgreSQL asks on the registry's own connection).
package protocol RegistryCaching: AnyObject, Sendable {
    /// The cache the lookups read.
    var registry: Mutex<RegistryCache> { get }
    /// The time the cache's freshness is measured by.
    var registryClock: any WallClock { get }
    /// How old the cache may get before a lookup refreshes it, in milliseconds.
    var registryRefreshIntervalMilliseconds: Int64 { get }
    /// Where a failed refresh is logged (at debug: the lookup answers from the cache).
    var registryLogger: Logger { get }
    /// Fails with ``StoreError/shutDown`` once the store is shutting down.
    func checkOpen() throws
    /// Brings the cache up to the registry's revision and, when asked, reads one token the cache may not hold.
    @discardableResult
    func refreshRegistry(alsoFetching tokenHex: String?) throws -> RegistryCache.CachedToken?
}

extension RegistryCaching {
    /// The registry entry of a token, from memory when the cache is fresh; a miss asks the registry, and its answer
    /// "unknown" is remembered for the refresh interval.
    package func cachedLookup(_ token: DeviceToken) throws -> TokenRecord? {
        try checkOpen()
        let now = registryClock.nowMilliseconds()
        let interval = registryRefreshIntervalMilliseconds
        let (cached, freshness) = registry.withLock { $0.token(token.hex, nowMilliseconds: now, refreshInterval: interval) }
        if let cached {
            guard freshness == .refreshDue else { return cached }
            do {
                try refreshRegistry(alsoFetching: nil)
            } catch {
                // A stale answer beats no answer on the hot path; the next lookup tries again.
                registryLogger.debug("Registry refresh failed", metadata: ["store.error": "\(error)"])
                return cached
            }
            return registry.withLock { $0.tokens[token.hex]?.record } ?? cached
        }
        // A miss asks the registry (the token may have been registered by another process just now), unless it was asked
        // about this token less than the refresh interval ago and did not hold it.
        if registry.withLock({ $0.missAnswer(token.hex, nowMilliseconds: now, refreshInterval: interval) }) { return nil }
        guard let found = try refreshRegistry(alsoFetching: token.hex) else {
            registry.withLock { $0.recordMiss(token.hex, nowMilliseconds: now) }
            return nil
        }
        return found.record
    }

    /// The signing key for a JWT `kid`, from memory when the cache is fresh; a miss refreshes first.
    package func cachedSigningKey(keyID: String) throws -> SigningKeyRecord? {
        try checkOpen()
        let now = registryClock.nowMilliseconds()
        let interval = registryRefreshIntervalMilliseconds
        let (cached, freshness) = registry.withLock { $0.signingKey(keyID, nowMilliseconds: now, refreshInterval: interval) }
        if let cached, freshness == .fresh { return cached }
        do {
            try refreshRegistry(alsoFetching: nil)
        } catch {
            guard let cached else { throw error }
            registryLogger.debug("Registry refresh failed", metadata: ["store.error": "\(error)"])
            return cached
        }
        // Every key is cached after a refresh, so a miss now is an answer.
        return registry.withLock { $0.signingKeys[keyID] }
    }

    /// The team an app belongs to, or `nil` when none was recorded; from memory, refreshed like the keys.
    package func cachedAppTeam(bundleID: String) throws -> String? {
        try checkOpen()
        let now = registryClock.nowMilliseconds()
        let interval = registryRefreshIntervalMilliseconds
        // One lock on the hot path: the team, whether a refresh is due, and whether the cache was ever filled.
        let (cached, freshness, loaded) = registry.withLock { cache in
            let (team, freshness) = cache.appTeam(bundleID, nowMilliseconds: now, refreshInterval: interval)
            return (team, freshness, cache.revision != nil)
        }
        guard freshness == .refreshDue || !loaded else { return cached }
        do {
            try refreshRegistry(alsoFetching: nil)
        } catch {
            registryLogger.debug("Registry refresh failed", metadata: ["store.error": "\(error)"])
            return cached
        }
        return registry.withLock { $0.appTeams[bundleID] }
    }
}
