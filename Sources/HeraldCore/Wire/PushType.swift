/// The value of the `apns-push-type` header (spec §A.3).
///
/// Unknown values are representable (they come from peers) but `isKnown` is false for them, and the
/// gateway answers `InvalidPushType`.
public struct PushType: RawRepresentable, Hashable, Sendable, CustomStringConvertible, Codable {
    /// The header value, e.g. `alert`.
    public let rawValue: String

    /// Creates a push type from its header value.
    public init(rawValue: String) {
        self.rawValue = rawValue
    }

    public var description: String { rawValue }

    public static let alert = Self(rawValue: "alert")
    public static let background = Self(rawValue: "background")
    public static let complication = Self(rawValue: "complication")
    public static let controls = Self(rawValue: "controls")
    public static let fileprovider = Self(rawValue: "fileprovider")
    public static let liveactivity = Self(rawValue: "liveactivity")
    public static let location = Self(rawValue: "location")
    public static let mdm = Self(rawValue: "mdm")
    public static let pushtotalk = Self(rawValue: "pushtotalk")
    public static let voip = Self(rawValue: "voip")
    public static let widgets = Self(rawValue: "widgets")
    /// A web push message (docs/web-push.md): the push type Herald stores a message the push service accepted with.
    /// Not an `apns-push-type` (not in ``allKnown``): `POST /3/device` refuses it as any unknown type.
    public static let webPush = Self(rawValue: "web-push")

    /// Every push type Apple documents.
    public static let allKnown: [PushType] = [
        .alert, .background, .complication, .controls, .fileprovider, .liveactivity, .location, .mdm, .pushtotalk, .voip,
        .widgets,
    ]

    /// Whether Apple documents this push type.
    public var isKnown: Bool { Self.topicSuffixes[rawValue] != nil }

    /// The suffix that this push type's `apns-topic` carries after the bundle id (spec §A.3); empty for
    /// `alert` and `background`, `nil` for `mdm` (whose topic is free-form) and unknown types.
    public var topicSuffix: String? {
        guard let suffix = Self.topicSuffixes[rawValue] else { return nil }
        return suffix
    }

    /// The largest payload, in bytes, that APNs accepts for this push type (spec §A.6).
    public var maximumPayloadSize: Int { self == .voip ? 5120 : 4096 }

    private static let topicSuffixes: [String: String?] = [
        "alert": "",
        "background": "",
        "complication": ".complication",
        "controls": ".push-type.controls",
        "fileprovider": ".pushkit.fileprovider",
        "liveactivity": ".push-type.liveactivity",
        "location": ".location-query",
        "mdm": String?.none,
        "pushtotalk": ".voip-ptt",
        "voip": ".voip",
        "widgets": ".push-type.widgets",
    ]

    /// All non-empty topic suffixes, longest first, for recognising the bundle id inside a topic.
    public static let knownTopicSuffixes: [String] = topicSuffixes.values.compactMap { $0 }.filter { !$0.isEmpty }
        .sorted { $0.count > $1.count }

    /// The push type a topic's suffix implies, for requests that carry no `apns-push-type` (alert otherwise).
    public static func inferred(fromTopic topic: String) -> PushType {
        for (name, suffix) in topicSuffixes {
            if let suffix, !suffix.isEmpty, topic.hasSuffix(suffix) { return PushType(rawValue: name) }
        }
        return .alert
    }

    /// The bundle id inside a topic: the topic less this push type's suffix.
    public func bundleID(fromTopic topic: String) -> String? {
        guard let suffix = topicSuffix else { return topic }
        guard !suffix.isEmpty else { return topic }
        guard topic.hasSuffix(suffix), topic.count > suffix.count else { return nil }
        return String(topic.dropLast(suffix.count))
    }
}
