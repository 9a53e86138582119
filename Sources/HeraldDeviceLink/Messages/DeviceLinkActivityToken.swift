import HeraldCore

/// The body of `activity-token`: a Live Activity token the device's ActivityKit made, to be registered so that
/// providers can push to it (docs/device-link.md, "activity-token").
public struct DeviceLinkActivityToken: Sendable, Hashable {
    /// Chosen by the device and echoed in the reply.
    public var id: String?
    /// The app, e.g. `com.example.app`.
    public var bundleID: String
    /// The environment of the gateway that may push to it (`sandbox` when the frame leaves it out).
    public var environment: APNSEnvironment
    /// `activity` (one activity's push token) or `push-to-start` (a type's push-to-start token).
    public var kind: TokenKind
    /// The `ActivityAttributes` type name (what a push's `attributes-type` names).
    public var activityType: String
    /// The token.
    public var token: DeviceToken

    /// Creates a token report.
    public init(id: String?, bundleID: String, environment: APNSEnvironment, kind: TokenKind, activityType: String, token: DeviceToken) {
        self.id = id
        self.bundleID = bundleID
        self.environment = environment
        self.kind = kind
        self.activityType = activityType
        self.token = token
    }
}

/// The body of `activity-token-registered` and `activity-token-retired`: the server's answer about one token.
public struct DeviceLinkActivityTokenReply: Sendable, Hashable {
    /// The request's `id`.
    public var id: String?
    /// The token.
    public var token: DeviceToken
    /// `activity-token-registered`: whether this request registered it (`false`: it already was).
    public var isNew: Bool
    /// `activity-token-retired`: when it stopped, in milliseconds since the epoch.
    public var retiredAtMilliseconds: Int64?

    /// Creates a reply.
    public init(id: String?, token: DeviceToken, isNew: Bool = false, retiredAtMilliseconds: Int64? = nil) {
        self.id = id
        self.token = token
        self.isNew = isNew
        self.retiredAtMilliseconds = retiredAtMilliseconds
    }
}

extension DeviceLinkClientMessage {
    /// The most active Live Activity tokens (both kinds) one device may hold; one more gets `too-many-tokens`.
    ///
    /// Why 64: an app runs at most 5 activities (docs/live-activities.md) and has one push-to-start token per
    /// type; 64 leaves room for several apps with a few types each while bounding what one device can store.
    public static let maximumActivityTokens = 64
    /// The longest activity type name, in UTF-8 bytes.
    public static let maximumActivityTypeLength = 255
    /// The token length Herald accepts, in hex digits (ActivityKit's tokens are 32 bytes: 64 digits).
    public static let activityTokenLengths = 16...200

    static func activityToken(_ reader: JSONObjectReader, _ context: DeviceLinkError) throws(DeviceLinkError) -> DeviceLinkActivityToken {
        let app = try appRequest(reader, context)
        let kind = TokenKind(rawValue: try reader.string("kind", context: context))
        guard kind.isActivityKind else {
            throw context.with(code: .invalidKind, message: "\"kind\" must be \"activity\" or \"push-to-start\"")
        }
        let activityType = try reader.string("activityType", context: context)
        guard (1...maximumActivityTypeLength).contains(activityType.utf8.count),
            !activityType.unicodeScalars.contains(where: { $0.properties.generalCategory == .control })
        else {
            throw context.with(message: "\"activityType\" must be 1 to \(maximumActivityTypeLength) bytes without control characters")
        }
        return DeviceLinkActivityToken(
            id: app.id,
            bundleID: app.bundleID,
            environment: app.environment,
            kind: kind,
            activityType: activityType,
            token: try activityTokenValue(reader, context)
        )
    }

    static func activityTokenValue(_ reader: JSONObjectReader, _ context: DeviceLinkError) throws(DeviceLinkError) -> DeviceToken {
        let text = try reader.string("token", context: context)
        guard activityTokenLengths.contains(text.utf8.count), let token = DeviceToken(hex: text) else {
            throw context.with(
                code: .invalidToken,
                message:
                    "\"token\" must be \(activityTokenLengths.lowerBound) to \(activityTokenLengths.upperBound) lowercase hex digits, an even number of them"
            )
        }
        return token
    }
}
