/// The parts of a notification payload that APNs and the device read: the `aps` dictionary (spec §B)
/// and the custom keys beside it.
public struct APNSPayload: Sendable, Hashable {
    /// The `alert` value: a string (shown as the body) or a dictionary (spec §B.2).
    public struct Alert: Sendable, Hashable {
        public var title: String?
        public var subtitle: String?
        public var body: String?
        public var launchImage: String?
        public var titleLocKey: String?
        public var titleLocArgs: [String]?
        public var subtitleLocKey: String?
        public var subtitleLocArgs: [String]?
        public var locKey: String?
        public var locArgs: [String]?

        /// Whether the alert has a title, subtitle or body (what a service extension needs, spec §B.3).
        public var hasVisibleText: Bool {
            [title, subtitle, body, titleLocKey, subtitleLocKey, locKey].contains { $0?.isEmpty == false }
        }

        /// Creates an alert.
        public init(title: String? = nil, subtitle: String? = nil, body: String? = nil) {
            self.title = title
            self.subtitle = subtitle
            self.body = body
        }
    }

    /// The `sound` value: a file name, or a critical-alert dictionary.
    public struct Sound: Sendable, Hashable {
        /// The sound file name, or `default`.
        public var name: String
        /// Whether this is a critical alert sound.
        public var critical: Bool
        /// The critical alert volume, 0–1.
        public var volume: Double?

        /// Creates a sound.
        public init(name: String, critical: Bool = false, volume: Double? = nil) {
            self.name = name
            self.critical = critical
            self.volume = volume
        }
    }

    /// The alert, if any.
    public var alert: Alert?
    /// The badge number; `nil` leaves the badge unchanged, `0` removes it.
    public var badge: Int?
    /// The sound, if any.
    public var sound: Sound?
    /// `thread-id`, the grouping key.
    public var threadID: String?
    /// `category`, the registered category identifier.
    public var category: String?
    /// `content-available: 1`: a background update.
    public var contentAvailable: Bool
    /// `mutable-content: 1`: run the notification service extension.
    public var mutableContent: Bool
    /// `target-content-id`.
    public var targetContentID: String?
    /// `interruption-level`: passive, active, time-sensitive or critical.
    public var interruptionLevel: String?
    /// `relevance-score`, 0–1.
    public var relevanceScore: Double?
    /// `filter-criteria`.
    public var filterCriteria: String?
    /// The whole `aps` dictionary as received.
    public var aps: JSONObject
    /// The keys outside `aps`, which reach the app as `userInfo`.
    public var customKeys: JSONObject

    /// Whether the payload is a silent (background) push: `content-available` with no alert, sound or badge.
    public var isSilent: Bool { contentAvailable && alert == nil && sound == nil && badge == nil }

    /// Reads a payload from a parsed JSON object. Unknown or wrongly typed `aps` keys are ignored, as APNs does.
    public init(_ root: JSONObject) {
        let aps = root["aps"]?.objectValue ?? JSONObject()
        self.aps = aps
        var custom = JSONObject()
        for member in root.members where member.key != "aps" {
            custom.append(member.key, member.value)
        }
        customKeys = custom
        switch aps["alert"] {
        case .string(let body): alert = Alert(body: body)
        case .object(let object): alert = Alert(object)
        default: alert = nil
        }
        badge = aps["badge"]?.integerValue
        switch aps["sound"] {
        case .string(let name): sound = Sound(name: name)
        case .object(let object):
            sound = Sound(
                name: object["name"]?.stringValue ?? "default",
                critical: object["critical"]?.integerValue == 1,
                volume: object["volume"]?.doubleValue
            )
        default: sound = nil
        }
        threadID = aps["thread-id"]?.stringValue
        category = aps["category"]?.stringValue
        contentAvailable = aps["content-available"]?.integerValue == 1
        mutableContent = aps["mutable-content"]?.integerValue == 1
        targetContentID = aps["target-content-id"]?.stringValue
        interruptionLevel = aps["interruption-level"]?.stringValue
        relevanceScore = aps["relevance-score"]?.doubleValue
        filterCriteria = aps["filter-criteria"]?.stringValue
    }
}

extension APNSPayload.Alert {
    init(_ object: JSONObject) {
        title = object["title"]?.stringValue
        subtitle = object["subtitle"]?.stringValue
        body = object["body"]?.stringValue
        launchImage = object["launch-image"]?.stringValue
        titleLocKey = object["title-loc-key"]?.stringValue
        titleLocArgs = object["title-loc-args"]?.arrayValue?.compactMap(\.stringValue)
        subtitleLocKey = object["subtitle-loc-key"]?.stringValue
        subtitleLocArgs = object["subtitle-loc-args"]?.arrayValue?.compactMap(\.stringValue)
        locKey = object["loc-key"]?.stringValue
        locArgs = object["loc-args"]?.arrayValue?.compactMap(\.stringValue)
    }
}
