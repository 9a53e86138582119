import HeraldCore

/// Why the push service refuses a web push request: the HTTP status and JSON `reason` it answers with, the rule that
/// failed, and a one-line explanation for Herald's trace.
///
/// Callers match on ``rule`` (`refusal.rule == .vapidSubjectAtLocalhost`); the set of rules can grow without breaking
/// them. The answer's body is `{"reason": <reason>}`, as APNs writes its own (spec §A.12).
public struct WebPushRefusal: Error, Hashable, Sendable, CustomStringConvertible {
    /// The rule that failed.
    public let rule: Rule
    /// One line saying what was wrong, naming the value: what Herald's trace shows
    /// (`VAPID sub "mailto:dev@localhost": a mailto at localhost is refused`).
    public let explanation: String
    /// The VAPID `sub` claim when the JWT was read far enough to have one, so that the trace names the sender.
    public let subject: String?

    /// The JSON `reason` of the answer.
    public var reason: Reason { rule.reason }

    /// The HTTP status of the answer.
    public var status: Int { rule.reason.status }

    /// Creates a refusal.
    public init(rule: Rule, explanation: String, subject: String? = nil) {
        self.rule = rule
        self.explanation = explanation
        self.subject = subject
    }

    /// The same refusal, naming the subject read from the JWT.
    func with(subject: String?) -> Self { Self(rule: rule, explanation: explanation, subject: subject ?? self.subject) }

    /// Status, reason and explanation, for logs.
    public var description: String { "\(status) \(reason): \(explanation)" }

    /// A value quoted for an explanation: JSON-escaped (so the explanation stays one line) and cut to 120 characters.
    static func quoted(_ value: some StringProtocol) -> String {
        let limit = 120
        guard value.count > limit else { return JSONString.quoted(String(value)) }
        return JSONString.quoted(String(value.prefix(limit))) + "…"
    }
}

extension WebPushRefusal {
    /// A `reason` string the push service answers with, and its status.
    ///
    /// `BadJwtToken` is Apple's (spec §A.12, [S46]). Apple is silent about the others; Herald answers with the APNs
    /// provider API's reason for the same fault where there is one (spec §A.5), *(chosen)*, and docs/web-push.md lists
    /// them all.
    public struct Reason: RawRepresentable, Hashable, Sendable, CustomStringConvertible {
        /// The exact string.
        public let rawValue: String

        /// Creates a reason from its string.
        public init(rawValue: String) {
            self.rawValue = rawValue
        }

        public var description: String { rawValue }

        /// The HTTP status that goes with the reason; 400 for a reason Herald does not know.
        public var status: Int { Self.statusByReason[rawValue] ?? 400 }

        /// 403: VAPID is missing or fails one of Apple's rules (Apple's reason).
        public static let badJwtToken = Self(rawValue: "BadJwtToken")
        /// 413: the body is over 4096 bytes *(chosen, APNs's reason)*.
        public static let payloadTooLarge = Self(rawValue: "PayloadTooLarge")
        /// 400: `TTL` is missing (when the policy requires it) or not a non-negative integer *(chosen, APNs's reason
        /// for `apns-expiration`)*.
        public static let badExpirationDate = Self(rawValue: "BadExpirationDate")
        /// 400: `Urgency` is not one of RFC 8030's four values *(chosen, APNs's reason for `apns-priority`)*.
        public static let badPriority = Self(rawValue: "BadPriority")
        /// 400: `Topic` is not at most 32 URL-safe base64 characters *(chosen, APNs's reason for `apns-collapse-id`)*.
        public static let badCollapseId = Self(rawValue: "BadCollapseId")
        /// 400: a header the push service reads was sent twice (APNs's reason).
        public static let duplicateHeaders = Self(rawValue: "DuplicateHeaders")
        /// 400: `Content-Encoding` names a coding but the body is empty *(chosen, APNs's reason)*.
        public static let payloadEmpty = Self(rawValue: "PayloadEmpty")
        /// 415: the body's `Content-Encoding` is missing or not one the push service takes *(chosen: HTTP's status for
        /// a content coding a server does not take, RFC 9110 §15.5.16; APNs has no reason for it)*.
        public static let unsupportedContentEncoding = Self(rawValue: "UnsupportedContentEncoding")
        /// 404: the endpoint names no subscription *(chosen, APNs's reason for a bad `:path`)*.
        public static let badPath = Self(rawValue: "BadPath")
        /// 410: the subscription expired, or its permission was removed when the policy answers so *(chosen, APNs's
        /// reason for a token no longer active)*.
        public static let unregistered = Self(rawValue: "Unregistered")

        private static let statusByReason: [String: Int] = [
            badJwtToken.rawValue: 403, payloadTooLarge.rawValue: 413, badExpirationDate.rawValue: 400, badPriority.rawValue: 400,
            badCollapseId.rawValue: 400, duplicateHeaders.rawValue: 400, payloadEmpty.rawValue: 400,
            unsupportedContentEncoding.rawValue: 415, badPath.rawValue: 404, unregistered.rawValue: 410,
        ]
    }
}
