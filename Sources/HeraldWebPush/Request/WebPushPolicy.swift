/// The push service's choices where Apple is silent, in one value; the defaults are Herald's *(chosen)* answers,
/// listed in docs/web-push.md with the setting that changes each.
public struct WebPushPolicy: Hashable, Sendable {
    /// What the push service does with something Apple's documentation does not cover.
    public enum Acceptance: String, Hashable, Sendable {
        /// Take it.
        case accept
        /// Refuse it.
        case refuse
    }

    /// How a push to a subscription whose permission the user removed is answered.
    public enum RemovedPermissionAnswer: String, Hashable, Sendable {
        /// `201 Created`, as if sent, and nothing is delivered: what Apple is reported to do (WebKit bug 249766,
        /// spec §A.12).
        case answerAsSent = "answer-as-sent"
        /// `410 Unregistered`: the honest answer, which tells the server to forget the subscription.
        case unregistered
    }

    /// The largest body, in bytes: RFC 8030 §7.2 asks a push service for at least 4096, and Apple's is 4096.
    public var maximumBodyLength: Int

    /// The longest a message is kept for delivery; a larger `TTL` is cut to it and the answer's `TTL` header says so
    /// (RFC 8030 §5.2). Default 30 days, as long as APNs keeps a notification (spec §A.3) *(chosen)*.
    public var maximumTTL: WebPushTTL

    /// The TTL of a request without a `TTL` header, or `nil` to refuse it (`400 BadExpirationDate`), as RFC 8030 §5.2
    /// lets a push service do. Default: ``maximumTTL``, as APNs keeps a notification without `apns-expiration` "according
    /// to APNs storage policy" (spec §A.3) *(chosen)*.
    public var missingTTL: WebPushTTL?

    /// The draft form of VAPID, `Authorization: WebPush <JWT>` with `Crypto-Key: p256ecdsa=<key>` (what some libraries
    /// send with `aesgcm`). Default: refused, `403 BadJwtToken`: Apple documents RFC 8292's `vapid` scheme only
    /// *(chosen)*. Accepted, its JWT goes through the same rules.
    public var legacyAuthorization: Acceptance

    /// `Content-Encoding: aesgcm`, the coding of draft-ietf-webpush-encryption-04 that RFC 8291 replaced. Default:
    /// refused, `415 UnsupportedContentEncoding`: Apple documents `aes128gcm`, and Herald's simulated web apps decrypt
    /// only that *(chosen)*.
    public var legacyContentEncoding: Acceptance

    /// The answer for a subscription whose permission was removed. Default ``RemovedPermissionAnswer/answerAsSent``.
    public var removedPermission: RemovedPermissionAnswer

    /// How far apart the sender's clock and Herald's may be, in seconds, when `exp` is checked: past by less than this,
    /// or more than 24 hours ahead by less than this, still passes. Default 60 *(chosen)*.
    public var clockLeewaySeconds: Int64

    /// The furthest ahead `exp` may be, in seconds: 24 hours (RFC 8292 §2, and Apple's documentation).
    public var maximumExpirationAheadSeconds: Int64

    /// The policy with Herald's defaults.
    public init(
        maximumBodyLength: Int = 4096,
        maximumTTL: WebPushTTL = .thirtyDays,
        missingTTL: WebPushTTL? = .thirtyDays,
        legacyAuthorization: Acceptance = .refuse,
        legacyContentEncoding: Acceptance = .refuse,
        removedPermission: RemovedPermissionAnswer = .answerAsSent,
        clockLeewaySeconds: Int64 = 60,
        maximumExpirationAheadSeconds: Int64 = 86_400
    ) {
        self.maximumBodyLength = maximumBodyLength
        self.maximumTTL = maximumTTL
        self.missingTTL = missingTTL
        self.legacyAuthorization = legacyAuthorization
        self.legacyContentEncoding = legacyContentEncoding
        self.removedPermission = removedPermission
        self.clockLeewaySeconds = clockLeewaySeconds
        self.maximumExpirationAheadSeconds = maximumExpirationAheadSeconds
    }
}
