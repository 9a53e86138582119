import Foundation

/// What a Live Activity shows that does not change (`Attributes`) and what does (`ContentState`), as in ActivityKit.
///
/// An app declares one type per kind of activity; a push names it by its type name (`attributes-type`) and carries the
/// two halves as JSON (`attributes`, `content-state`), which must decode into these types.
///
/// Neither half need be `Sendable`, as in Apple's declaration (`Decodable, Encodable`; `ContentState` adds `Hashable`):
/// Herald keeps them as JSON and decodes a fresh value wherever the app reads one. `SendableMetatype` (Herald's, not in
/// Apple's declaration) lets the center keep a decoder for the type; it only rules out a conformance isolated to an
/// actor, which an attributes struct does not have.
public protocol ActivityAttributes: Decodable, Encodable, SendableMetatype {
    /// The dynamic part: what `update` and a push's `content-state` change.
    associatedtype ContentState: Decodable & Encodable & Hashable
}

/// The content of an activity: its dynamic state and when it goes stale, as in ActivityKit.
public struct ActivityContent<State: Decodable & Encodable & Hashable>: Hashable {
    /// The dynamic state.
    public var state: State
    /// When the content is out of date: the activity becomes ``ActivityState/stale`` then; `nil`: never.
    public var staleDate: Date?
    /// Which of an app's activities the system shows first (higher first). Default 0.
    public var relevanceScore: Double

    /// Creates content.
    public init(state: State, staleDate: Date?, relevanceScore: Double = 0) {
        self.state = state
        self.staleDate = staleDate
        self.relevanceScore = relevanceScore
    }
}

extension ActivityContent: Sendable where State: Sendable {}

/// Where an activity is in its life, as in ActivityKit.
public enum ActivityState: String, Hashable, Sendable, Codable, CaseIterable {
    /// On screen and current.
    case active
    /// On screen, but its content passed its stale date.
    case stale
    /// Ended: still on the lock screen until its dismissal time; no more updates.
    case ended
    /// Gone from the screen.
    case dismissed
    /// Scheduled to start at a later date (iOS 26): not on screen, takes no update until it starts.
    case pending
}

/// How a Live Activity appears, as in ActivityKit (iOS 18).
public enum ActivityStyle: Hashable, Sendable {
    /// Shown until it ends, on the lock screen and in the Dynamic Island.
    case standard
    /// Shown in the Dynamic Island and as a banner, then removed from the lock screen.
    case transient
}

/// How an activity receives pushes, as in ActivityKit: its own push token, or a broadcast channel.
public struct PushType: Hashable, Sendable {
    /// The channel id, for ``channel(_:)``; `nil` for ``token``.
    public let channelID: String?

    private init(channelID: String?) {
        self.channelID = channelID
    }

    /// The activity gets a push token of its own (``Activity/pushToken``).
    public static let token = PushType(channelID: nil)

    /// The activity subscribes to a broadcast channel (iOS 18).
    public static func channel(_ channelID: String) -> PushType { PushType(channelID: channelID) }
}

/// When an ended activity leaves the lock screen, as in ActivityKit.
public struct ActivityUIDismissalPolicy: Hashable, Sendable {
    enum Kind: Hashable, Sendable {
        case byDefault
        case immediate
        case after(Date)
    }

    let kind: Kind

    /// The system's choice: up to four hours after it ended (``ActivityCenter/Configuration/endedVisibility``).
    public static let `default` = ActivityUIDismissalPolicy(kind: .byDefault)
    /// At once.
    public static let immediate = ActivityUIDismissalPolicy(kind: .immediate)

    /// At a date (within the four hours); a date in the past is at once.
    public static func after(_ date: Date) -> ActivityUIDismissalPolicy { ActivityUIDismissalPolicy(kind: .after(date)) }
}

/// The alert an update may show (on the lock screen it lights the screen; with the device in use, a banner).
///
/// Apple's `title` and `body` are `LocalizedStringResource`, which Linux's Foundation lacks; string literals, the
/// usual argument, compile against both.
public struct AlertConfiguration: Hashable, Sendable, Codable {
    /// The sound an alert plays, as in ActivityKit.
    public struct AlertSound: Hashable, Sendable, Codable {
        /// The sound file's name; `nil`: the system's default sound.
        public let name: String?

        /// The system's default alert sound.
        public static let `default` = AlertSound(name: nil)

        /// A sound file in the app's bundle.
        public static func named(_ name: String) -> AlertSound { AlertSound(name: name) }

        /// Decodes the file name, or `null` for the default sound.
        public init(from decoder: any Decoder) throws {
            let container = try decoder.singleValueContainer()
            name = container.decodeNil() ? nil : try container.decode(String.self)
        }

        /// Encodes the file name, or `null` for the default sound.
        public func encode(to encoder: any Encoder) throws {
            var container = encoder.singleValueContainer()
            if let name { try container.encode(name) } else { try container.encodeNil() }
        }

        private init(name: String?) {
            self.name = name
        }
    }

    /// The title.
    public var title: String
    /// The body.
    public var body: String
    /// The sound.
    public var sound: AlertSound

    /// Creates an alert (Apple's initialiser).
    public init(title: String, body: String, sound: AlertSound) {
        self.title = title
        self.body = body
        self.sound = sound
    }

    /// Creates an alert from a payload's sound name; `nil`: the default sound.
    public init(title: String, body: String, sound: String? = nil) {
        self.init(title: title, body: body, sound: sound.map { AlertSound.named($0) } ?? .default)
    }
}
