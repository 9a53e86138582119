import HeraldCore
import HeraldStore

/// The checks of a push after authentication, steps 5 to 8 of the gateway's order (docs/provider-api.md):
/// header values, topic, device token, payload.
///
/// The gateway runs them on every request; the web console's validation (`POST /api/v1/console/validate`) runs the
/// very same code, so both give the same reason for the same push.
public struct ProviderRequestRules: Sendable {
    /// A refusal: the reason, and for `Unregistered` the time the token stopped.
    public struct Rejection: Error, Hashable, Sendable {
        /// The reason the gateway answers with.
        public var reason: APNSReason
        /// The `timestamp` of a `410 Unregistered`, in milliseconds since the epoch.
        public var timestamp: Int64?

        /// Creates a rejection.
        public init(reason: APNSReason, timestamp: Int64? = nil) {
            self.reason = reason
            self.timestamp = timestamp
        }
    }

    /// The environment the gateway serves: a token of the other one is `BadDeviceToken`.
    public let environment: APNSEnvironment
    /// The choices where Apple does not document the reason.
    public let policy: ValidationPolicy
    private let payloadValidator: PayloadValidator

    /// The largest body read for one request: the largest payload APNs takes (VoIP, 5120 bytes, spec §A.6) plus
    /// one, so that "too large" is known without keeping the rest.
    public static let bodyLimit = PushType.voip.maximumPayloadSize + 1

    /// Rules for a gateway of `environment` with `policy`.
    public init(environment: APNSEnvironment, policy: ValidationPolicy) {
        self.environment = environment
        self.policy = policy
        self.payloadValidator = PayloadValidator(policy: policy)
    }

    /// Checks a push and, when it passes, returns the notification to commit (a per-token rate limit aside).
    ///
    /// - Parameters:
    ///   - head: the request's `apns-*` headers.
    ///   - tokenText: the device token as the path has it.
    ///   - body: the payload (at most ``bodyLimit`` bytes are needed); `bodyTooLarge` when more were sent.
    ///   - authorizedTopic: the topic a provider certificate implies when the request has no `apns-topic`.
    ///   - authorizationRejection: an authorization refusal that is reported only after the topic is found well
    ///     formed (`TopicDisallowed`, `MissingTopic`), as the gateway's order has it.
    ///   - teamID: the team of the token-auth key that signed the request: an app of another team is `TopicDisallowed`.
    ///   - store: where device tokens are looked up (read only).
    ///   - apnsID: the notification's `apns-id` (the provider's, or one the gateway made).
    public func check(
        head: ProviderRequestHead,
        tokenText: String,
        body: [UInt8],
        bodyTooLarge: Bool,
        authorizedTopic: String? = nil,
        authorizationRejection: APNSReason? = nil,
        teamID: String? = nil,
        store: any NotificationStore,
        nowMilliseconds now: Int64,
        apnsID: String
    ) -> Result<AcceptedNotification, Rejection> {
        // 5. header values
        let values: ProviderHeaderValues
        switch ProviderHeaderValues.parse(head, policy: policy, nowSeconds: now / 1000) {
        case .failure(let reason): return .failure(Rejection(reason: reason))
        case .success(let parsed): values = parsed
        }
        // 6. topic
        guard let topic = head.topic ?? authorizedTopic else { return .failure(Rejection(reason: .missingTopic)) }
        let pushType: PushType
        let bundleID: String
        switch Topic.resolve(topic, pushType: values.pushType) {
        case .failure(let reason): return .failure(Rejection(reason: reason))
        case .success(let resolved): (pushType, bundleID) = resolved
        }
        if let authorizationRejection { return .failure(Rejection(reason: authorizationRejection)) }
        // An app belongs to one team: a key of another team may not push to it (spec §A.7, "sending to a
        // nonassociated topic"; docs/provider-api.md, "Apps and teams"). An app with no recorded team takes any.
        if let teamID, let appTeam = try? store.appTeam(bundleID: bundleID), appTeam != teamID {
            return .failure(Rejection(reason: .topicDisallowed))
        }
        // 7. device token
        guard let token = DeviceToken(hex: tokenText) else { return .failure(Rejection(reason: .badDeviceToken)) }
        // A registry that cannot answer (its database is unreachable) is not a verdict on the token: `503`, so that
        // the provider retries instead of dropping a token that may be valid (docs/postgresql.md).
        let found: TokenRecord?
        do {
            found = try store.lookup(token)
        } catch {
            return .failure(Rejection(reason: .serviceUnavailable))
        }
        guard let record = found, record.environment == environment else {
            return .failure(Rejection(reason: .badDeviceToken))
        }
        guard record.bundleID == bundleID else { return .failure(Rejection(reason: .deviceTokenNotForTopic)) }
        // A token's kind names the topic it serves (docs/provider-api.md, "Live Activity tokens"): an activity or
        // push-to-start token takes `<bundle>.push-type.liveactivity` pushes only, a device token every other type.
        // Apple's answer to a mismatch is `DeviceTokenNotForTopic`, "the device token doesn't match the specified
        // topic" (spec §A.2, §A.7).
        guard record.kind.isActivityKind == (pushType == .liveactivity) else {
            return .failure(Rejection(reason: .deviceTokenNotForTopic))
        }
        if let unregistered = record.unregisteredAtMilliseconds {
            return .failure(Rejection(reason: .unregistered, timestamp: unregistered))
        }
        // 8. payload
        if bodyTooLarge { return .failure(Rejection(reason: .payloadTooLarge)) }
        if case .failure(let reason) = payloadValidator.validate(body, pushType: pushType) {
            return .failure(Rejection(reason: reason))
        }
        return .success(
            AcceptedNotification(
                id: NotificationID(apnsID) ?? NotificationID.random(),
                token: token,
                topic: topic,
                bundleID: bundleID,
                environment: environment,
                pushType: pushType,
                priority: values.priority ?? .immediate,
                expiration: values.expiration,
                collapseID: values.collapseID,
                payload: body,
                acceptedAtMilliseconds: now
            )
        )
    }
}
