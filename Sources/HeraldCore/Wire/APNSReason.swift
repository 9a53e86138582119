/// A `reason` string of the APNs provider API, with the HTTP status it travels with.
///
/// The set is open: a reason that Herald does not know (read from a peer, say) is data, not a crash.
/// Spec §A.5 lists every reason; the raw values are Apple's exact strings.
public struct APNSReason: RawRepresentable, Hashable, Sendable, CustomStringConvertible, Error {
    /// Apple's exact reason string.
    public let rawValue: String

    /// Creates a reason from its wire string.
    public init(rawValue: String) {
        self.rawValue = rawValue
    }

    public var description: String { rawValue }

    /// The HTTP status that accompanies this reason (spec §A.5); 400 for reasons Herald does not know.
    public var status: Int {
        Self.statusByReason[rawValue] ?? 400
    }

    public static let badCollapseId = Self(rawValue: "BadCollapseId")
    public static let badDeviceToken = Self(rawValue: "BadDeviceToken")
    public static let badExpirationDate = Self(rawValue: "BadExpirationDate")
    public static let badMessageId = Self(rawValue: "BadMessageId")
    public static let badPriority = Self(rawValue: "BadPriority")
    public static let badTopic = Self(rawValue: "BadTopic")
    public static let deviceTokenNotForTopic = Self(rawValue: "DeviceTokenNotForTopic")
    public static let duplicateHeaders = Self(rawValue: "DuplicateHeaders")
    public static let idleTimeout = Self(rawValue: "IdleTimeout")
    public static let invalidPushType = Self(rawValue: "InvalidPushType")
    public static let missingDeviceToken = Self(rawValue: "MissingDeviceToken")
    public static let missingTopic = Self(rawValue: "MissingTopic")
    public static let payloadEmpty = Self(rawValue: "PayloadEmpty")
    public static let topicDisallowed = Self(rawValue: "TopicDisallowed")
    public static let badCertificate = Self(rawValue: "BadCertificate")
    public static let badCertificateEnvironment = Self(rawValue: "BadCertificateEnvironment")
    public static let expiredProviderToken = Self(rawValue: "ExpiredProviderToken")
    public static let forbidden = Self(rawValue: "Forbidden")
    public static let invalidProviderToken = Self(rawValue: "InvalidProviderToken")
    public static let missingProviderToken = Self(rawValue: "MissingProviderToken")
    public static let unrelatedKeyIdInToken = Self(rawValue: "UnrelatedKeyIdInToken")
    /// The string APNs is observed to send for a key used in the wrong environment (spec §A.5, conflict note).
    public static let badEnvironmentKeyInToken = Self(rawValue: "BadEnvironmentKeyInToken")
    /// The string Apple's page documents for the same condition (spec §A.5, conflict note).
    public static let badEnvironmentKeyIdInToken = Self(rawValue: "BadEnvironmentKeyIdInToken")
    public static let badPath = Self(rawValue: "BadPath")
    public static let methodNotAllowed = Self(rawValue: "MethodNotAllowed")
    public static let expiredToken = Self(rawValue: "ExpiredToken")
    public static let unregistered = Self(rawValue: "Unregistered")
    public static let payloadTooLarge = Self(rawValue: "PayloadTooLarge")
    public static let tooManyProviderTokenUpdates = Self(rawValue: "TooManyProviderTokenUpdates")
    public static let tooManyRequests = Self(rawValue: "TooManyRequests")
    public static let internalServerError = Self(rawValue: "InternalServerError")
    public static let serviceUnavailable = Self(rawValue: "ServiceUnavailable")
    public static let shutdown = Self(rawValue: "Shutdown")
    // The channel-management and broadcast APIs' own (spec §A.11, docs/broadcast.md).
    public static let missingChannelId = Self(rawValue: "MissingChannelId")
    public static let badChannelId = Self(rawValue: "BadChannelId")
    public static let channelNotRegistered = Self(rawValue: "ChannelNotRegistered")
    public static let featureNotEnabled = Self(rawValue: "FeatureNotEnabled")
    public static let cannotCreateChannelConfig = Self(rawValue: "CannotCreateChannelConfig")
    public static let badRequestParams = Self(rawValue: "BadRequestParams")
    public static let badRequestPayload = Self(rawValue: "BadRequestPayload")
    public static let missingPushType = Self(rawValue: "MissingPushType")
    public static let topicMismatch = Self(rawValue: "TopicMismatch")

    /// Every reason Herald knows (spec §A.5), in no particular order: the ones a gateway can answer with.
    public static var all: [APNSReason] {
        statusByReason.keys.map(APNSReason.init(rawValue:))
    }

    private static let statusByReason: [String: Int] = {
        var table: [String: Int] = [:]
        for reason in [
            badCollapseId, badDeviceToken, badExpirationDate, badMessageId, badPriority, badTopic,
            deviceTokenNotForTopic, duplicateHeaders, idleTimeout, invalidPushType, missingDeviceToken,
            missingTopic, payloadEmpty, topicDisallowed, missingChannelId, badChannelId, channelNotRegistered, featureNotEnabled,
            cannotCreateChannelConfig, badRequestParams, badRequestPayload, missingPushType,
        ] {
            table[reason.rawValue] = 400
        }
        table[topicMismatch.rawValue] = 403
        for reason in [
            badCertificate, badCertificateEnvironment, expiredProviderToken, forbidden, invalidProviderToken,
            missingProviderToken, unrelatedKeyIdInToken, badEnvironmentKeyInToken, badEnvironmentKeyIdInToken,
        ] {
            table[reason.rawValue] = 403
        }
        table[badPath.rawValue] = 404
        table[methodNotAllowed.rawValue] = 405
        table[expiredToken.rawValue] = 410
        table[unregistered.rawValue] = 410
        table[payloadTooLarge.rawValue] = 413
        table[tooManyProviderTokenUpdates.rawValue] = 429
        table[tooManyRequests.rawValue] = 429
        table[internalServerError.rawValue] = 500
        table[serviceUnavailable.rawValue] = 503
        table[shutdown.rawValue] = 503
        return table
    }()
}
