import HeraldCore

/// The server's answer to one ``APNSRequest``.
///
/// A status other than 200 is an answer, not an error: `send` throws only when no answer arrived.
public struct APNSResponse: Sendable, Hashable {
    /// The HTTP status: 200 when the notification was accepted.
    public var status: Int
    /// The `reason` of an error answer's JSON body (`BadDeviceToken`, …); `nil` on success.
    public var reason: APNSReason?
    /// `apns-id`: the request's own when it sent one, else the one the server made up.
    public var apnsID: String?
    /// `apns-unique-id`: the id the sandbox environment gives each notification for the Push Notifications Console.
    public var apnsUniqueID: String?
    /// With `410 Unregistered`: when the token stopped being valid, in milliseconds since the UNIX epoch.
    public var timestamp: Int64?
    /// From the call to `send` to the end of the answer, including any wait for a free stream.
    public var latency: Duration
    /// The Herald fault rule that made this answer instead of the real one (its `herald-fault-rule` header,
    /// docs/faults.md); `nil` from APNs, and from Herald when no rule applied.
    public var faultRule: String?

    /// The header that names the fault rule of an answer a Herald fault rule made.
    public static let faultRuleHeader = "herald-fault-rule"

    /// Creates a response (for tests and doubles; the client makes them from the wire).
    public init(
        status: Int,
        reason: APNSReason? = nil,
        apnsID: String? = nil,
        apnsUniqueID: String? = nil,
        timestamp: Int64? = nil,
        latency: Duration = .zero,
        faultRule: String? = nil
    ) {
        self.faultRule = faultRule
        self.status = status
        self.reason = reason
        self.apnsID = apnsID
        self.apnsUniqueID = apnsUniqueID
        self.timestamp = timestamp
        self.latency = latency
    }

    /// Whether APNs accepted the notification (status 200).
    public var isAccepted: Bool { status == 200 }
}

extension APNSResponse {
    /// The answer to a push, as the connection collected it.
    init(_ answer: APNSAnswer) {
        self.init(
            status: answer.status,
            reason: answer.reason,
            apnsID: answer.apnsID,
            apnsUniqueID: answer.uniqueID,
            timestamp: answer.timestamp,
            latency: answer.latency,
            faultRule: answer.faultRule
        )
    }

    /// Reads `reason` and `timestamp` from an error body `{"reason":"…","timestamp":…}`; anything else is ignored.
    static func errorBody(_ body: [UInt8]) -> (reason: APNSReason?, timestamp: Int64?) {
        guard !body.isEmpty, let object = (try? JSONParser.parse(body))?.objectValue else { return (nil, nil) }
        let reason = object["reason"]?.stringValue.map(APNSReason.init(rawValue:))
        let timestamp = object["timestamp"]?.doubleValue.flatMap { $0.rounded() == $0 ? Int64(exactly: $0) : nil }
        return (reason, timestamp)
    }
}
