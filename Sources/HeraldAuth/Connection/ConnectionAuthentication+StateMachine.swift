import HeraldCore

extension ConnectionAuthentication {
    /// Authenticates one request: verifies its token (token connections) or applies the client certificate
    /// (certificate connections, whose `authorization` is ignored).
    ///
    /// - Parameters:
    ///   - authorization: the request's `authorization` value, if any.
    ///   - topic: the request's `apns-topic`, if any.
    ///   - bundleID: the bundle ID the topic stands for (the topic without its push-type suffix), if known.
    ///   - verifier: the gateway's token verifier (consulted only on token connections).
    ///   - nowSeconds: the caller's clock, seconds since the UNIX epoch.
    public mutating func authorize(
        authorization: String?,
        topic: String?,
        bundleID: String?,
        verifier: ProviderTokenVerifier,
        nowSeconds: Int64
    ) -> Decision {
        if usesCertificate { return authorize(topic: topic, nowSeconds: nowSeconds) }
        let token = verifier.verify(authorization: authorization, nowSeconds: nowSeconds)
        return authorize(token: token, topic: topic, bundleID: bundleID, nowSeconds: nowSeconds)
    }

    /// Applies the connection rules to a request whose token was verified (or refused) already.
    ///
    /// Rule order, each citing spec §A.7 ("Connection binding", "Lifetime") and §A.5:
    /// 1. the token's own failure (`MissingProviderToken`, `InvalidProviderToken`, `ExpiredProviderToken`);
    /// 2. on a bound connection, a token of another team: ``Configuration/otherTeamReason`` (`Forbidden`);
    /// 3. a key whose environments exclude the connection's: ``Configuration/badEnvironmentKeyReason``;
    /// 4. on a bound connection, a key unrelated to the first one (see ``SigningKey/isRelated(to:)``):
    ///    `UnrelatedKeyIdInToken`;
    /// 5. a new token (neither the current nor the one before it) less than
    ///    ``Configuration/minimumTokenUpdateInterval`` after the current one was first used:
    ///    `TooManyProviderTokenUpdates` (the connection keeps its current token);
    /// 6. a topic-specific key and a topic it does not list: `TopicDisallowed`.
    ///
    /// The first token to pass 1–3 binds the connection (``Decision/isFirstValidToken``), even if its topic fails 6.
    /// On a certificate connection the token is ignored and the certificate rules apply.
    public mutating func authorize(
        token: Result<VerifiedProviderToken, ProviderTokenError>,
        topic: String?,
        bundleID: String?,
        nowSeconds: Int64
    ) -> Decision {
        guard case .token(let binding) = mode else { return authorize(topic: topic, nowSeconds: nowSeconds) }
        let identity: VerifiedProviderToken
        switch token {
        case .success(let verified): identity = verified
        case .failure(let error): return .reject(error.reason)
        }
        let key = identity.key

        // "APNs doesn't support authentication tokens from multiple developer accounts over a single connection."
        if let binding, key.teamID != binding.firstKey.teamID { return .reject(configuration.otherTeamReason) }
        // "… a team-scoped key from a different environment results in an error" (both spellings, spec §A.5).
        if !key.environments.includes(environment) { return .reject(configuration.badEnvironmentKeyReason) }
        // "… using an unrelated topic-specific key … or a team-scoped key … also results in an error."
        if let binding, !binding.firstKey.isRelated(to: key) { return .reject(.unrelatedKeyIdInToken) }

        let isFirstValidToken: Bool
        if var binding {
            isFirstValidToken = false
            if identity.token != binding.currentToken && identity.token != binding.previousToken {
                // "APNs report an error if you use a new token more than once every 20 minutes on the same connection."
                guard nowSeconds - binding.currentTokenSince >= configuration.minimumTokenUpdateInterval else {
                    return .reject(.tooManyProviderTokenUpdates)
                }
                binding.previousToken = binding.currentToken
                binding.currentToken = identity.token
                binding.currentTokenSince = nowSeconds
                mode = .token(binding)
            }
        } else {
            isFirstValidToken = true
            mode = .token(Binding(firstKey: key, currentToken: identity.token, previousToken: nil, currentTokenSince: nowSeconds))
        }

        var decision = Decision(
            rejection: nil,
            topic: topic,
            teamID: key.teamID,
            keyID: key.keyID,
            isFirstValidToken: isFirstValidToken
        )
        // "… or sending to a nonassociated topic also results in an error" (mapped to TopicDisallowed, spec §A.7).
        if let topic, !key.allows(topic: topic, bundleID: bundleID) { decision.rejection = .topicDisallowed }
        return decision
    }

    /// Applies the client certificate to a request (certificate connections).
    ///
    /// `BadCertificate` (expired or not yet valid at `nowSeconds`), `BadCertificateEnvironment`, `TopicDisallowed`,
    /// or `MissingTopic` (no `apns-topic` and a multi-topic certificate); with no `apns-topic` and a single-topic
    /// certificate, the decision's topic is the certificate's (spec §A.2). On a token connection this answers
    /// `MissingProviderToken`: no certificate and no token (spec §A.5).
    public func authorize(topic: String?, nowSeconds: Int64) -> Decision {
        guard case .certificate(let certificate) = mode else { return .reject(.missingProviderToken) }
        switch certificate.authorize(topic: topic, environment: environment, nowSeconds: nowSeconds) {
        case .success(let topic):
            return Decision(rejection: nil, topic: topic, teamID: nil, keyID: nil, isFirstValidToken: false)
        case .failure(let reason):
            return .reject(reason)
        }
    }
}
