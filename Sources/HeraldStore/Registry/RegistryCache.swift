/// The in-memory copy of the device-token registry and the signing keys that hot-path lookups read.
///
/// Freshness rule: the cache knows the registry revision it reflects (a counter the schema's triggers
/// move on every token or key change, by any process). A lookup older than the refresh interval, or a
/// miss, reads the counter; when it moved, the rows changed since are fetched and applied. Changes made
/// through this process's own store are applied at once.
///
/// Tokens are cached as they are used or changed (not all at open); keys, being few, are all cached.
///
/// A token the file does not hold is remembered too, for the refresh interval (``missAnswer(_:nowMilliseconds:refreshInterval:)``):
/// a provider that keeps pushing to a token it should have dropped gets `400 BadDeviceToken` from memory, not from a
/// read of the file each time (the reject path of bench/gateway: ~6k/s with a read per push).
package struct RegistryCache: Sendable {
    /// The most misses remembered; when full, all are forgotten (a flood of random tokens reads the file as before).
    package static let maximumMisses = 10_000

    /// A cached token with the registry revision of its row, so that an older read never overwrites a newer one.
    package struct CachedToken: Sendable {
        package var record: TokenRecord
        package var revision: Int64

        package init(record: TokenRecord, revision: Int64) {
            self.record = record
            self.revision = revision
        }
    }

    /// What a lookup must do after reading the cache.
    package enum Freshness: Equatable {
        /// The cache is fresh enough: answer from it.
        case fresh
        /// This caller must refresh (it claimed the refresh, so concurrent callers do not).
        case refreshDue
    }

    package private(set) var tokens: [String: CachedToken] = [:]
    /// Tokens the file did not hold, with when it was asked (ms).
    package private(set) var misses: [String: Int64] = [:]
    package private(set) var signingKeys: [String: SigningKeyRecord] = [:]
    /// Every app's team, by bundle id; like keys, apps are few and all cached.
    package private(set) var appTeams: [String: String] = [:]
    /// The registry revision the cache reflects; `nil` before the first refresh.
    package private(set) var revision: Int64?
    private var lastCheckedAtMilliseconds: Int64 = .min

    package init() {}

    /// The cached token, and whether the calling lookup must refresh first.
    package mutating func token(_ hex: String, nowMilliseconds: Int64, refreshInterval: Int64) -> (TokenRecord?, Freshness) {
        (tokens[hex]?.record, claimRefreshIfDue(nowMilliseconds: nowMilliseconds, refreshInterval: refreshInterval))
    }

    /// The cached key, and whether the calling lookup must refresh first.
    package mutating func signingKey(_ keyID: String, nowMilliseconds: Int64, refreshInterval: Int64) -> (SigningKeyRecord?, Freshness) {
        (signingKeys[keyID], claimRefreshIfDue(nowMilliseconds: nowMilliseconds, refreshInterval: refreshInterval))
    }

    private mutating func claimRefreshIfDue(nowMilliseconds: Int64, refreshInterval: Int64) -> Freshness {
        // A clock that went backwards also counts as due.
        let elapsed = nowMilliseconds.subtractingReportingOverflow(lastCheckedAtMilliseconds)
        guard elapsed.overflow || elapsed.partialValue >= refreshInterval || elapsed.partialValue < 0 else { return .fresh }
        lastCheckedAtMilliseconds = nowMilliseconds
        return .refreshDue
    }

    /// Applies what a refresh read: the revision, the token rows changed since the cache's revision, and
    /// (when any change happened) all keys.
    package mutating func apply(
        revision newRevision: Int64,
        changedTokens: [CachedToken],
        allSigningKeys: [SigningKeyRecord]?,
        allApps: [AppRecord]? = nil
    ) {
        // Two refreshes may race; the one that read an older snapshot must not undo the newer one.
        if let revision, newRevision < revision { return }
        for token in changedTokens {
            store(token)
        }
        if let allSigningKeys {
            signingKeys = Dictionary(allSigningKeys.map { ($0.keyID, $0) }, uniquingKeysWith: { _, last in last })
        }
        if let allApps {
            appTeams = Dictionary(allApps.map { ($0.bundleID, $0.teamID) }, uniquingKeysWith: { _, last in last })
        }
        revision = newRevision
    }

    /// Adds or updates one token, unless the cache holds a newer version of its row.
    package mutating func store(_ token: CachedToken) {
        misses[token.record.token.hex] = nil
        if let cached = tokens[token.record.token.hex], cached.revision > token.revision { return }
        tokens[token.record.token.hex] = token
    }

    /// Remembers that the file did not hold `hex` when asked at `nowMilliseconds`.
    package mutating func recordMiss(_ hex: String, nowMilliseconds: Int64) {
        guard tokens[hex] == nil else { return }
        if misses.count >= Self.maximumMisses { misses.removeAll(keepingCapacity: true) }
        misses[hex] = nowMilliseconds
    }

    /// Whether a lookup of a token the cache does not hold may answer "unknown" from memory: the file was asked
    /// about it less than the refresh interval ago (the same age a cached token may have). A token registered since
    /// by this process is cached, so it is not a miss; by another process, it is found once the interval has passed.
    package func missAnswer(_ hex: String, nowMilliseconds: Int64, refreshInterval: Int64) -> Bool {
        guard tokens[hex] == nil, let askedAt = misses[hex] else { return false }
        let elapsed = nowMilliseconds.subtractingReportingOverflow(askedAt)
        return !elapsed.overflow && elapsed.partialValue >= 0 && elapsed.partialValue < refreshInterval
    }

    /// Adds or replaces one key.
    package mutating func store(_ key: SigningKeyRecord) {
        signingKeys[key.keyID] = key
    }

    /// The team of an app, and whether the calling lookup must refresh first.
    package mutating func appTeam(_ bundleID: String, nowMilliseconds: Int64, refreshInterval: Int64) -> (String?, Freshness) {
        (appTeams[bundleID], claimRefreshIfDue(nowMilliseconds: nowMilliseconds, refreshInterval: refreshInterval))
    }

    /// Adds, replaces or (with `nil`) forgets one app's team.
    package mutating func storeApp(_ bundleID: String, teamID: String?) {
        appTeams[bundleID] = teamID
    }

    /// Forgets one key.
    package mutating func removeSigningKey(_ keyID: String) {
        signingKeys[keyID] = nil
    }
}
