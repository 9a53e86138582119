import Foundation

/// What a Live Activity shows that does not change (`Attributes`) and what does (`ContentState`), as in ActivityKit.
///
/// An app declares one type per kind of activity; a push names it by its type name (`attributes-type`) and carries the
/// two halves as JSON (`attributes`, `content-state`), which must decode into these types.
public protocol ActivityAttributes: Codable, Sendable {
    /// The dynamic part: what `update` and a push's `content-state` change.
    associatedtype ContentState: Codable & Hashable & Sendable
}

/// The content of an activity: its dynamic state and when it goes stale, as in ActivityKit.
public struct ActivityContent<State: Codable & Hashable & Sendable>: Hashable, Sendable {
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
public struct AlertConfiguration: Hashable, Sendable, Codable {
    /// The title.
    public var title: String
    /// The body.
    public var body: String
    /// The sound's name; `nil`: the default sound.
    public var sound: String?

    /// Creates an alert.
    public init(title: String, body: String, sound: String? = nil) {
        self.title = title
        self.body = body
        self.sound = sound
    }
}

/// Whether the person lets the app show Live Activities, as in ActivityKit.
public struct ActivityAuthorizationInfo: Sendable {
    let center: ActivityCenter

    /// The running app's (``ActivityCenter/current``).
    public init() {
        center = ActivityCenter.current
    }

    /// Whether the app may start activities (the Settings switch).
    public var areActivitiesEnabled: Bool { center.configuration.activitiesEnabled }
    /// Whether the app declared `NSSupportsLiveActivitiesFrequentUpdates` and the person allows it.
    public var frequentPushesEnabled: Bool { center.configuration.supportsFrequentUpdates }
}

/// Why ``Activity/request(attributes:content:pushType:)`` failed, as in ActivityKit.
public struct ActivityAuthorizationError: Error, Hashable, Sendable, CustomStringConvertible {
    private enum Code: String, Hashable, Sendable {
        case denied, targetMaximumExceeded, attributesTooLarge, unsupported
    }

    private let code: Code

    /// The person turned Live Activities off for the app.
    public static let denied = ActivityAuthorizationError(code: .denied)
    /// The app has as many activities as it may (``ActivityCenter/Configuration/maximumActivities``).
    public static let targetMaximumExceeded = ActivityAuthorizationError(code: .targetMaximumExceeded)
    /// The attributes and the content together are over 4 KB.
    public static let attributesTooLarge = ActivityAuthorizationError(code: .attributesTooLarge)
    /// A channel push type on a device or app that cannot subscribe to channels.
    public static let unsupported = ActivityAuthorizationError(code: .unsupported)

    public var description: String { code.rawValue }
}
