import Synchronization

/// VAPID credentials that passed every check once, so that a sender who reuses its JWT — as RFC 8292 §2 lets it, for
/// up to 24 hours — is not verified again from scratch on every push (the ECDSA verification is the push service's
/// largest cost per request: bench/webpush/results-2026-11-29.md).
///
/// What is kept: for an exact `Authorization` (and `Crypto-Key`) text, the identity it proved and the origin and
/// subscription key it was checked against. A later request with the same texts, the same origin and the same
/// subscription key skips the parsing and the signature, and still has `exp` checked against the time (the only check
/// that changes with it). Anything else — another origin, another subscription key, a header that differs by one
/// byte — is verified in full, so every refusal keeps its exact explanation. A refusal is never kept.
///
/// Bounded: at most ``capacity`` entries; when full, the oldest half is forgotten. The push service's APNs side keeps
/// verified provider tokens the same way (`ProviderTokenVerifier`).
public final class VAPIDCredentialCache: Sendable {
    struct Entry: Sendable {
        var identity: VAPIDIdentity
        var origin: String
        var subscriptionKey: VAPIDPublicKey
        var order: UInt64
    }

    /// The most credentials kept.
    public let capacity: Int
    private let entries = Mutex((byText: [String: Entry](), next: UInt64(0)))

    /// An empty cache of at most `capacity` credentials.
    public init(capacity: Int = 4096) {
        self.capacity = max(2, capacity)
    }

    /// How many credentials it holds.
    public var count: Int { entries.withLock { $0.byText.count } }

    /// The key of a request's credentials: the two header texts as sent.
    static func key(authorization: String?, cryptoKey: String?) -> String? {
        guard let authorization else { return nil }
        return cryptoKey.map { authorization + "\n" + $0 } ?? authorization
    }

    /// The identity these credentials proved against this origin and subscription key, if they did.
    func identity(for key: String, origin: String, subscriptionKey: VAPIDPublicKey) -> VAPIDIdentity? {
        entries.withLock { state in
            guard let entry = state.byText[key], entry.origin == origin, entry.subscriptionKey == subscriptionKey else { return nil }
            return entry.identity
        }
    }

    /// Keeps credentials that passed every check.
    func keep(_ identity: VAPIDIdentity, for key: String, origin: String, subscriptionKey: VAPIDPublicKey) {
        entries.withLock { state in
            if state.byText[key] == nil, state.byText.count >= capacity {
                let cutoff = state.next - UInt64(capacity / 2)
                state.byText = state.byText.filter { $0.value.order >= cutoff }
            }
            state.byText[key] = Entry(identity: identity, origin: origin, subscriptionKey: subscriptionKey, order: state.next)
            state.next += 1
        }
    }
}
