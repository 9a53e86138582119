/// A bounded map from token text to verified identity, with generation-based eviction.
///
/// Two generations of at most `capacity / 2` entries each: inserts go to the young one; when it is full it becomes
/// the old one and the previous old one is dropped whole. A hit in the old generation moves the entry back to the
/// young one, so tokens in use survive and the map never holds more than `capacity` entries. Each operation is a
/// dictionary lookup or two, which is what the gateway's hot path can afford (`reference/performance-baseline.md`).
struct VerifiedTokenCache: Sendable {
    private var young: [String: VerifiedProviderToken] = [:]
    private var old: [String: VerifiedProviderToken] = [:]
    private let generationCapacity: Int

    /// Creates an empty cache holding at most `capacity` tokens (at least 2).
    init(capacity: Int) {
        generationCapacity = max(1, capacity / 2)
    }

    /// The number of cached tokens.
    var count: Int { young.count + old.count }

    /// The identity cached for a token, refreshing its generation.
    mutating func lookUp(_ token: String) -> VerifiedProviderToken? {
        if let hit = young[token] { return hit }
        guard let hit = old.removeValue(forKey: token) else { return nil }
        insert(hit)
        return hit
    }

    /// Caches an identity under its token text.
    mutating func insert(_ identity: VerifiedProviderToken) {
        if young.count >= generationCapacity, young[identity.token] == nil {
            old = young
            young = [:]
            young.reserveCapacity(generationCapacity)
        }
        young[identity.token] = identity
    }

    /// Drops every token signed with a key (the key was removed or replaced).
    mutating func removeAll(keyID: String) {
        young = young.filter { $0.value.keyID != keyID }
        old = old.filter { $0.value.keyID != keyID }
    }
}
