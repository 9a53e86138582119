/// VAPID's checks with Apple's rules (RFC 8292, spec §A.12): the credentials are read, `k` must be the key the
/// subscription was made with, the JWT's signature must verify with it, and its claims must pass.
///
/// Every refusal is `403 BadJwtToken`, as Apple answers; its explanation names the rule, and its subject is the `sub`
/// claim once the JWT has been read, so that a trace shows who sent a push that failed. The order of the checks is the
/// order of the explanations a sender sees first: the header, the JWT's form, the key, the signature, then `aud`,
/// `exp` and `sub`.
public struct VAPIDVerifier: Sendable {
    /// The policy: the draft form's acceptance, the clock leeway, how far ahead `exp` may be.
    public var policy: WebPushPolicy
    /// Credentials verified before, checked again only for `exp` (``VAPIDCredentialCache``); `nil` verifies every time.
    public var cache: VAPIDCredentialCache?

    /// A verifier with `policy`, and `cache` for credentials a sender reuses.
    public init(policy: WebPushPolicy = WebPushPolicy(), cache: VAPIDCredentialCache? = nil) {
        self.policy = policy
        self.cache = cache
    }

    /// Verifies a request's VAPID credentials.
    ///
    /// - Parameters:
    ///   - authorization: the `Authorization` header's value, `nil` when absent.
    ///   - cryptoKey: the `Crypto-Key` header's value, `nil` when absent (read only for the draft form).
    ///   - subscriptionKey: the subscription's `applicationServerKey`, which `k` must be.
    ///   - origin: the push service's origin as the subscription's endpoint names it (`https://web.push.apple.com`),
    ///     which `aud` must be.
    ///   - nowSeconds: the time, in seconds since the UNIX epoch.
    public func verify(
        authorization: String?,
        cryptoKey: String?,
        subscriptionKey: VAPIDPublicKey,
        origin: String,
        nowSeconds: Int64
    ) -> Result<VAPIDIdentity, WebPushRefusal> {
        let cacheKey = cache == nil ? nil : VAPIDCredentialCache.key(authorization: authorization, cryptoKey: cryptoKey)
        if let cache, let cacheKey, let identity = cache.identity(for: cacheKey, origin: origin, subscriptionKey: subscriptionKey),
            expirationProblem(identity.expiration, subject: identity.subject, now: nowSeconds) == nil
        {
            return .success(identity)
        }
        do {
            let identity = try check(
                authorization: authorization,
                cryptoKey: cryptoKey,
                subscriptionKey: subscriptionKey,
                origin: origin,
                now: nowSeconds
            )
            if let cache, let cacheKey { cache.keep(identity, for: cacheKey, origin: origin, subscriptionKey: subscriptionKey) }
            return .success(identity)
        } catch {
            return .failure(error)
        }
    }

    private func check(
        authorization: String?,
        cryptoKey: String?,
        subscriptionKey: VAPIDPublicKey,
        origin: String,
        now: Int64
    ) throws(WebPushRefusal) -> VAPIDIdentity {
        let credentials = try VAPIDAuthorization(authorization: authorization, cryptoKey: cryptoKey)
        if credentials.scheme == .legacyWebPush, policy.legacyAuthorization == .refuse {
            throw WebPushRefusal(
                rule: .vapidLegacyScheme,
                explanation: "VAPID: Authorization: WebPush with Crypto-Key: p256ecdsa= is the draft form; send vapid t=<JWT>, k=<key> (RFC 8292)"
            )
        }
        let token = try VAPIDToken(parsing: credentials.token)
        // Read before it is verified, so that every refusal from here on names who claims to send.
        let subject = token.subject
        guard credentials.key == subscriptionKey else {
            throw WebPushRefusal(
                rule: .vapidKeyMismatch,
                explanation: "VAPID k \(Self.abbreviated(credentials.key)) is not the key the subscription was made with "
                    + "(its applicationServerKey \(Self.abbreviated(subscriptionKey)))",
                subject: subject
            )
        }
        if let problem = token.signatureProblem(for: credentials.key) {
            throw WebPushRefusal(rule: .vapidBadSignature, explanation: "VAPID JWT signature " + problem, subject: subject)
        }

        guard let audience = token.audience else { throw missingClaim("aud", subject: subject) }
        guard let expiration = token.expiration else { throw missingClaim("exp", subject: subject) }
        guard let subject else { throw missingClaim("sub", subject: nil) }

        guard let expected = VAPIDOrigin(origin), VAPIDOrigin(audience) == expected else {
            let why = VAPIDOrigin(audience) == nil ? " (not an origin: scheme://host[:port] with no path)" : ""
            throw WebPushRefusal(
                rule: .vapidAudience,
                explanation: "VAPID aud \(WebPushRefusal.quoted(audience))\(why) is not the push service's origin \(WebPushRefusal.quoted(origin))",
                subject: subject
            )
        }
        if let problem = expirationProblem(expiration, subject: subject, now: now) { throw problem }
        if let refusal = VAPIDSubject.check(subject) { throw refusal }
        return VAPIDIdentity(scheme: credentials.scheme, key: credentials.key, subject: subject, audience: audience, expiration: expiration)
    }

    /// `exp` against the time: not past, at most 24 hours ahead (with the policy's leeway either way).
    private func expirationProblem(_ expiration: Double, subject: String, now: Int64) -> WebPushRefusal? {
        let ahead = expiration - Double(now)
        if ahead <= -Double(policy.clockLeewaySeconds) {
            return WebPushRefusal(
                rule: .vapidExpired,
                explanation: "VAPID exp \(Self.format(expiration)) is \(Self.format(-ahead)) s in the past",
                subject: subject
            )
        }
        if ahead > Double(policy.maximumExpirationAheadSeconds + policy.clockLeewaySeconds) {
            return WebPushRefusal(
                rule: .vapidExpirationTooFar,
                explanation: "VAPID exp \(Self.format(expiration)) is \(Self.format(ahead)) s ahead, more than 24 hours "
                    + "(\(policy.maximumExpirationAheadSeconds) s)",
                subject: subject
            )
        }
        return nil
    }

    private func missingClaim(_ name: String, subject: String?) -> WebPushRefusal {
        WebPushRefusal(
            rule: .vapidMissingClaim,
            explanation: "VAPID JWT has no \(name) claim of the right type (aud and sub strings, exp a number)",
            subject: subject
        )
    }

    /// The first and last characters of a key, enough to tell two apart in a trace.
    private static func abbreviated(_ key: VAPIDPublicKey) -> String {
        let text = key.base64URL
        return "\(text.prefix(10))…\(text.suffix(6))"
    }

    private static func format(_ seconds: Double) -> String {
        seconds.rounded() == seconds && abs(seconds) < 9.0e15 ? String(Int64(seconds)) : String(seconds)
    }
}

/// What a verified VAPID JWT says: who sent the push, with which key, and until when the token holds.
public struct VAPIDIdentity: Hashable, Sendable {
    /// The form the credentials came in.
    public let scheme: VAPIDAuthorization.Scheme
    /// The application server's public key (`k`).
    public let key: VAPIDPublicKey
    /// The `sub` claim: the sender's contact.
    public let subject: String
    /// The `aud` claim as sent.
    public let audience: String
    /// The `exp` claim, in seconds since the UNIX epoch.
    public let expiration: Double

    /// The claims of a verified token.
    public init(scheme: VAPIDAuthorization.Scheme, key: VAPIDPublicKey, subject: String, audience: String, expiration: Double) {
        self.scheme = scheme
        self.key = key
        self.subject = subject
        self.audience = audience
        self.expiration = expiration
    }
}
