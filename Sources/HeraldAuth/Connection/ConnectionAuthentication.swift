import HeraldCore

/// The authentication state of one provider HTTP/2 connection, and the rules that bind it (spec §A.7, §A.8).
///
/// The gateway keeps one per connection and calls ``authorize(token:topic:bundleID:nowSeconds:)`` (token
/// connections) or ``authorize(topic:nowSeconds:)`` (certificate connections) for each request; the pure rules are
/// in `ConnectionAuthentication+StateMachine.swift`. The value holds no lock: it belongs to its connection's event
/// loop.
///
/// A connection with a client certificate authenticates with it and ignores `authorization` ("APNs ignores this
/// header if you use certificate-based authentication", spec §A.2). A connection without one needs a provider token
/// on every request, and is bound to the team and key of its first valid token.
public struct ConnectionAuthentication: Sendable {
    /// Rules that Apple leaves open or that a deployment tunes.
    public struct Configuration: Sendable, Hashable {
        /// The least time between two new tokens on one connection, in seconds: "APNs report an error if you use a new
        /// token more than once every 20 minutes on the same connection" (spec §A.5). Default 1200.
        public var minimumTokenUpdateInterval: Int64
        /// The reason for a key whose environment is not the connection's. Default `BadEnvironmentKeyInToken`, the
        /// string APNs is observed to send; `BadEnvironmentKeyIdInToken` is the one Apple documents (spec §A.5,
        /// conflict note).
        public var badEnvironmentKeyReason: APNSReason
        /// The reason for a token of another team on a bound connection. Apple documents no string for it (spec §A.7,
        /// §D.3). Default `Forbidden` ("The specified action is not allowed"), as one third-party policy model does
        /// ([S40]): nothing about the token itself is wrong, the connection forbids it.
        public var otherTeamReason: APNSReason

        /// Creates a configuration; every parameter has a documented default.
        public init(
            minimumTokenUpdateInterval: Int64 = 1200,
            badEnvironmentKeyReason: APNSReason = .badEnvironmentKeyInToken,
            otherTeamReason: APNSReason = .forbidden
        ) {
            self.minimumTokenUpdateInterval = minimumTokenUpdateInterval
            self.badEnvironmentKeyReason = badEnvironmentKeyReason
            self.otherTeamReason = otherTeamReason
        }
    }

    /// The verdict on one request.
    public struct Decision: Sendable, Hashable {
        /// The reason to answer with, or `nil` when the request may go on to the next checks.
        public var rejection: APNSReason?
        /// The topic to deliver to: the request's `apns-topic`, or for a single-topic certificate with none, the
        /// certificate's topic. `nil` when the request had none on a token connection (the gateway's header checks
        /// answer `MissingTopic`).
        public var topic: String?
        /// The team the request was authenticated as (the token's team; `nil` for certificates).
        public var teamID: String?
        /// The key the request was authenticated with (`nil` for certificates).
        public var keyID: String?
        /// Whether this request carried the connection's first valid token. The gateway then raises
        /// SETTINGS_MAX_CONCURRENT_STREAMS from 1 to its configured value (spec §A.1, "Token-auth stream gate").
        /// May be `true` on a rejected request: the token was valid even if, say, its topic was not allowed.
        public var isFirstValidToken: Bool

        /// Whether the request passed authentication.
        public var isAccepted: Bool { rejection == nil }

        /// A refusal with this reason, before any rule ran (the gateway's `ServiceUnavailable` when the key cannot be
        /// looked up).
        public static func reject(_ reason: APNSReason) -> Self {
            Self(rejection: reason, topic: nil, teamID: nil, keyID: nil, isFirstValidToken: false)
        }
    }

    /// What a token connection is bound to after its first valid token.
    struct Binding: Sendable, Hashable {
        /// The key of the first valid token (fixes the team and which keys are related).
        var firstKey: SigningKey
        /// The token most recently accepted as new.
        var currentToken: String
        /// The token before it, still accepted: streams signed before a refresh may arrive after it.
        var previousToken: String?
        /// When ``currentToken`` was first used, seconds since the UNIX epoch.
        var currentTokenSince: Int64
    }

    enum Mode: Sendable {
        case token(Binding?)
        case certificate(ProviderCertificate)
    }

    /// The environment this connection's listener serves.
    public let environment: APNSEnvironment
    /// The rules in force.
    public let configuration: Configuration
    var mode: Mode

    /// Creates the state of a new connection.
    ///
    /// - Parameters:
    ///   - environment: the environment of the listener that accepted the connection.
    ///   - clientCertificate: the peer's verified leaf certificate, if it presented one; the connection then uses
    ///     certificate authentication.
    ///   - configuration: the tunable rules.
    public init(
        environment: APNSEnvironment,
        clientCertificate: ProviderCertificate? = nil,
        configuration: Configuration = Configuration()
    ) {
        self.environment = environment
        self.configuration = configuration
        self.mode = clientCertificate.map(Mode.certificate) ?? .token(nil)
    }

    /// Whether the connection authenticates with a client certificate (its requests' `authorization` is ignored).
    public var usesCertificate: Bool {
        if case .certificate = mode { return true }
        return false
    }

    /// Whether the connection may already use all its streams: a certificate connection from the start, a token
    /// connection once a valid token arrived (spec §A.1).
    public var isAuthenticated: Bool {
        switch mode {
        case .certificate: true
        case .token(let binding): binding != nil
        }
    }

    /// The team a token connection is bound to, once bound.
    public var boundTeamID: String? {
        if case .token(let binding?) = mode { return binding.firstKey.teamID }
        return nil
    }

    /// The key a token connection is bound to (its first valid token's key), once bound.
    public var boundKeyID: String? {
        if case .token(let binding?) = mode { return binding.firstKey.keyID }
        return nil
    }
}
