import HeraldCore
import HeraldDelivery

/// A push as the web console's send form has it (`POST /api/v1/console/validate` and `/send`).
///
/// The device token is given directly, or as a device and one of its apps (the app's active token).
public struct ConsolePush: Sendable, Hashable {
    /// The device token in hex.
    public var token: String?
    /// The device, when ``token`` is absent.
    public var deviceID: String?
    /// The app on ``deviceID``; also the default topic.
    public var bundleID: String?
    /// `apns-topic`; when absent, the app's bundle id with the push type's suffix.
    public var topic: String?
    /// `apns-push-type`.
    public var pushType: String?
    /// `apns-priority`.
    public var priority: Int64?
    /// `apns-expiration`.
    public var expiration: Int64?
    /// `apns-collapse-id`.
    public var collapseID: String?
    /// `apns-id`.
    public var apnsID: String?
    /// The payload as typed: the request body.
    public var payload: [UInt8]

    /// Creates a push.
    public init(
        token: String? = nil,
        deviceID: String? = nil,
        bundleID: String? = nil,
        topic: String? = nil,
        pushType: String? = nil,
        priority: Int64? = nil,
        expiration: Int64? = nil,
        collapseID: String? = nil,
        apnsID: String? = nil,
        payload: [UInt8]
    ) {
        self.token = token
        self.deviceID = deviceID
        self.bundleID = bundleID
        self.topic = topic
        self.pushType = pushType
        self.priority = priority
        self.expiration = expiration
        self.collapseID = collapseID
        self.apnsID = apnsID
        self.payload = payload
    }

    /// Reads the form's JSON body; `payload` is required, a string (the JSON text as typed) or a JSON object.
    ///
    /// - Throws: a one-line message for a body that is not such an object, or one with a header value that cannot be sent.
    init(json body: [UInt8]) throws(WebError) {
        let reader = try WebError.bodyReader(body)
        let context = WebError.badRequest("")
        token = try reader.optionalString("token", context: context)
        deviceID = try reader.optionalString("deviceID", context: context)
        bundleID = try reader.optionalString("bundleID", context: context)
        topic = try reader.optionalString("topic", context: context)
        pushType = try reader.optionalString("pushType", context: context)
        priority = try reader.optionalInteger("priority", context: context)
        expiration = try reader.optionalInteger("expiration", context: context)
        collapseID = try reader.optionalString("collapseID", context: context)
        apnsID = try reader.optionalString("apnsID", context: context)
        switch reader.object["payload"] {
        case nil, .null?: throw context.with(message: "\"payload\" is required: a string (the JSON text) or a JSON object")
        case .string(let text)?: payload = Array(text.utf8)
        case .object?: payload = try reader.rawObject("payload", context: context)
        default: throw context.with(message: "\"payload\" must be a string (the JSON text) or a JSON object")
        }
        // These become header values (`bundleID` the topic when there is none), where HTTP/2 forbids NUL, CR and LF
        // (RFC 9113 §8.2.1): such a push cannot be sent at all, so it is the form's error, not the gateway's verdict.
        let headerValues = [("bundleID", bundleID), ("topic", topic), ("pushType", pushType), ("collapseID", collapseID), ("apnsID", apnsID)]
        for case let (name, value?) in headerValues where value.utf8.contains(where: { $0 == 0 || $0 == 0x0A || $0 == 0x0D }) {
            throw .badRequest("\"\(name)\" cannot be sent: a header value may not contain NUL, CR or LF")
        }
    }
}

/// A push the gateway's rules refuse, as `POST /api/v1/console/validate` tells it.
public struct ConsolePushRejection: Sendable, Hashable {
    /// The reason the gateway would answer with.
    public var reason: APNSReason
    /// What it means, in one line for a person.
    public var message: String

    /// Creates a rejection.
    public init(reason: APNSReason, message: String) {
        self.reason = reason
        self.message = message
    }
}

/// The gateway's answer to a push the console sent.
public struct ConsolePushAnswer: Sendable, Hashable {
    /// The HTTP status: 200 when accepted.
    public var status: Int
    /// The `apns-id` of the answer.
    public var apnsID: String?
    /// The reason of a refusal.
    public var reason: String?
    /// The `timestamp` of a `410`, in milliseconds since the epoch.
    public var timestamp: Int64?

    /// Creates an answer.
    public init(status: Int, apnsID: String?, reason: String? = nil, timestamp: Int64? = nil) {
        self.status = status
        self.apnsID = apnsID
        self.reason = reason
        self.timestamp = timestamp
    }
}

/// Checks and sends the console's pushes with the gateway's own rules and path (`HeraldServer` provides it).
public protocol ConsolePushService: Sendable {
    /// The gateway's verdict on the push without authentication and without storing it: `nil` when it would be
    /// accepted (a per-token rate limit aside).
    func validate(_ push: ConsolePush) async -> ConsolePushRejection?

    /// Sends the push through the gateway as a provider would, and returns the gateway's answer.
    ///
    /// - Throws: when no answer came (the gateway could not be reached), with a one-line message.
    func send(_ push: ConsolePush) async throws -> ConsolePushAnswer

    /// Sends a channel-management or broadcast request through the gateway as a provider would (a default
    /// implementation answers `503`).
    func channelRequest(_ request: ConsoleChannelRequest) async throws -> ConsoleChannelAnswer
}
