extension WebPushRefusal {
    /// A rule of the push service that a request can fail, with the reason it answers.
    ///
    /// VAPID's rules all answer `403 BadJwtToken`, as Apple does (spec §A.12): Apple's documentation lists a missing
    /// JWT, a wrong signing key, a `sub` that is neither a URL nor `mailto:`, an `aud` that is not the push service's
    /// origin and an `exp` more than a day ahead; `mailto:` at `localhost`, a space and angle brackets are publicly
    /// reported ([S46]).
    public struct Rule: Hashable, Sendable, CustomStringConvertible {
        /// A short name, for logs and tests.
        public let name: String
        /// The reason the push service answers when the rule fails.
        public let reason: Reason

        private init(_ name: String, _ reason: Reason) {
            self.name = name
            self.reason = reason
        }

        public var description: String { name }

        // VAPID (RFC 8292) with Apple's rules.

        /// No `Authorization` header, or an empty one.
        public static let vapidMissing = Self("vapid-missing", .badJwtToken)
        /// The header is not `vapid t=…, k=…`: another scheme, a parameter missing or repeated, too long.
        public static let vapidMalformedHeader = Self("vapid-malformed-header", .badJwtToken)
        /// The draft form `WebPush <JWT>` with `Crypto-Key: p256ecdsa=…`, which the policy refuses.
        public static let vapidLegacyScheme = Self("vapid-legacy-scheme", .badJwtToken)
        /// `k` is not a 65-byte uncompressed point on P-256.
        public static let vapidBadKey = Self("vapid-bad-key", .badJwtToken)
        /// The JWT is not three base64url parts of JSON objects, or is over a limit.
        public static let vapidMalformedToken = Self("vapid-malformed-token", .badJwtToken)
        /// The JWT's `alg` is not `ES256`, or its `typ` is not `JWT`.
        public static let vapidUnsupportedAlgorithm = Self("vapid-unsupported-algorithm", .badJwtToken)
        /// `k` is not the key the subscription was made with (its `applicationServerKey`).
        public static let vapidKeyMismatch = Self("vapid-key-mismatch", .badJwtToken)
        /// The signature does not verify with `k`: the JWT was signed with another private key.
        public static let vapidBadSignature = Self("vapid-bad-signature", .badJwtToken)
        /// `aud`, `exp` or `sub` is missing or of the wrong type.
        public static let vapidMissingClaim = Self("vapid-missing-claim", .badJwtToken)
        /// `aud` is not the origin of the push service the request was sent to.
        public static let vapidAudience = Self("vapid-audience", .badJwtToken)
        /// `exp` is past.
        public static let vapidExpired = Self("vapid-expired", .badJwtToken)
        /// `exp` is more than 24 hours ahead.
        public static let vapidExpirationTooFar = Self("vapid-expiration-too-far", .badJwtToken)
        /// `sub` is neither a `mailto:` address nor an `https:` URL with a host.
        public static let vapidSubjectNotContact = Self("vapid-subject-not-contact", .badJwtToken)
        /// `sub` is a `mailto:` at `localhost`, or an `https:` URL whose host is `localhost` or a loopback address.
        public static let vapidSubjectAtLocalhost = Self("vapid-subject-at-localhost", .badJwtToken)
        /// `sub` has a space (or other whitespace).
        public static let vapidSubjectSpace = Self("vapid-subject-space", .badJwtToken)
        /// `sub` has angle brackets (`mailto:<ops@example.com>`).
        public static let vapidSubjectAngleBrackets = Self("vapid-subject-angle-brackets", .badJwtToken)

        // The request (RFC 8030 §5).

        /// A header the push service reads was sent twice.
        public static let duplicateHeader = Self("duplicate-header", .duplicateHeaders)
        /// The body is over the policy's maximum (4096 bytes).
        public static let bodyTooLarge = Self("body-too-large", .payloadTooLarge)
        /// A body without `Content-Encoding`.
        public static let missingContentEncoding = Self("missing-content-encoding", .unsupportedContentEncoding)
        /// `Content-Encoding` is neither `aes128gcm` nor (when the policy takes it) `aesgcm`.
        public static let unsupportedContentEncoding = Self("unsupported-content-encoding", .unsupportedContentEncoding)
        /// `Content-Encoding: aesgcm`, which the policy refuses.
        public static let legacyContentEncoding = Self("legacy-content-encoding", .unsupportedContentEncoding)
        /// `Content-Encoding` with an empty body.
        public static let emptyEncodedBody = Self("empty-encoded-body", .payloadEmpty)
        /// No `TTL`, and the policy requires one.
        public static let missingTTL = Self("missing-ttl", .badExpirationDate)
        /// `TTL` is not a non-negative integer.
        public static let badTTL = Self("bad-ttl", .badExpirationDate)
        /// `Urgency` is not `very-low`, `low`, `normal` or `high`.
        public static let badUrgency = Self("bad-urgency", .badPriority)
        /// `Topic` is empty, over 32 characters, or outside the URL-safe base64 alphabet.
        public static let badTopic = Self("bad-topic", .badCollapseId)

        // The subscription.

        /// The endpoint names no subscription.
        public static let unknownSubscription = Self("unknown-subscription", .badPath)
        /// The subscription has expired.
        public static let expiredSubscription = Self("expired-subscription", .unregistered)
        /// The user removed the web app's permission, and the policy answers it honestly.
        public static let permissionRemoved = Self("permission-removed", .unregistered)
    }
}
