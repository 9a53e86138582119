/// A push request as the push service receives it (RFC 8030 §5: `POST` to a subscription's endpoint): the headers it
/// reads, the body's length and the origin it was sent to — strings and a byte count, no HTTP types.
///
/// ``evaluate(subscription:policy:nowSeconds:)`` decides: an ``Accepted`` message (what to store and how to deliver
/// it) or a ``WebPushRefusal`` (status, reason and explanation). The push service does not decrypt: the body's length
/// and `Content-Encoding` are all it checks of the body.
public struct WebPushRequest: Sendable {
    /// The request's headers, names in any case, in the order received; repeated names kept (a repeat of a header the
    /// push service reads is refused).
    public var headers: [(name: String, value: String)]
    /// The body's length in bytes.
    public var bodyLength: Int
    /// The push service's origin as the subscription's endpoint names it (`https://web.push.apple.com`): what the VAPID
    /// `aud` claim must be.
    public var origin: String

    /// A request.
    public init(headers: [(name: String, value: String)], bodyLength: Int, origin: String) {
        self.headers = headers
        self.bodyLength = bodyLength
        self.origin = origin
    }

    /// The headers the push service reads, lowercase: a repeat of any is `400 DuplicateHeaders`.
    public static let readHeaders: [String] = ["authorization", "crypto-key", "ttl", "urgency", "topic", "content-encoding"]

    /// The subscription a request's endpoint names, as the push service holds it.
    public struct Subscription: Hashable, Sendable {
        /// Where the subscription stands.
        public enum State: String, Hashable, Sendable {
            /// Pushes are delivered.
            case active
            /// The user removed the web app's permission (answered as ``WebPushPolicy/removedPermission`` says).
            case permissionRemoved = "permission-removed"
            /// The subscription expired: `410 Unregistered`.
            case expired
        }

        /// The key the subscription was made with (`applicationServerKey`): the only key its pushes may be signed with.
        public var applicationServerKey: VAPIDPublicKey
        /// Where it stands.
        public var state: State

        /// A subscription.
        public init(applicationServerKey: VAPIDPublicKey, state: State = .active) {
            self.applicationServerKey = applicationServerKey
            self.state = state
        }
    }

    /// A body's content coding.
    public enum ContentEncoding: String, Hashable, Sendable {
        /// RFC 8188's coding, which RFC 8291 uses: the one Apple documents.
        case aes128gcm
        /// The draft coding RFC 8291 replaced (taken only when ``WebPushPolicy/legacyContentEncoding`` says so).
        case aesgcm
    }

    /// A request the push service takes: what to store and how to deliver it.
    public struct Accepted: Hashable, Sendable {
        /// What becomes of the message.
        public enum Delivery: Hashable, Sendable {
            /// Stored and delivered.
            case deliver
            /// Answered as sent, and dropped: the subscription's permission was removed and the policy answers as
            /// Apple is reported to (``WebPushPolicy/RemovedPermissionAnswer/answerAsSent``). The explanation is for
            /// the trace.
            case dropAnsweredAsSent(explanation: String)
        }

        /// How long the message is kept: the request's `TTL`, cut to the policy's maximum, or the policy's TTL for a
        /// request without one. The answer's `TTL` header carries it (RFC 8030 §5.2).
        public let ttl: WebPushTTL
        /// The `TTL` the request sent, `nil` when it sent none.
        public let requestedTTL: WebPushTTL?
        /// The `Urgency`, ``WebPushUrgency/normal`` when none was sent.
        public let urgency: WebPushUrgency
        /// The `Topic`: a later message with the same topic replaces this one while it waits.
        public let topic: WebPushTopic?
        /// Who sent it, verified.
        public let vapid: VAPIDIdentity
        /// The body's coding; `nil` for an empty push (no body, no coding), which RFC 8030 allows.
        public let contentEncoding: ContentEncoding?
        /// The body's length in bytes.
        public let bodyLength: Int
        /// Stored and delivered, or dropped.
        public let delivery: Delivery
        /// The choices the push service made on the request's behalf, one line each, for the trace (a `TTL` cut, a
        /// `TTL` supplied).
        public let notes: [String]
    }
}
