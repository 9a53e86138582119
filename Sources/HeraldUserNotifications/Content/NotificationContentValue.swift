import Foundation

/// The immutable value behind a ``UNNotificationContent``: what a notification says.
///
/// Herald keeps content as this `Sendable` value so that requests and delivered notifications
/// can cross concurrency domains; the Apple-shaped classes are views over it.
public struct NotificationContentValue: Sendable, Hashable {
    /// The title.
    public var title = ""
    /// The subtitle.
    public var subtitle = ""
    /// The body text.
    public var body = ""
    /// The badge: `nil` leaves the badge unchanged, `0` removes it, a positive value sets it.
    public var badge: Int?
    /// The sound to play, if any.
    public var sound: UNNotificationSound?
    /// Custom data (for a remote notification: the whole payload, `aps` included).
    public var userInfo: [String: JSONValue] = [:]
    /// The registered category whose actions are shown.
    public var categoryIdentifier = ""
    /// The grouping key (`thread-id`).
    public var threadIdentifier = ""
    /// Media attachments.
    public var attachments: [UNNotificationAttachment] = []
    /// The launch image name.
    public var launchImageName = ""
    /// The window to bring forward (`target-content-id`).
    public var targetContentIdentifier: String?
    /// The interruption level.
    public var interruptionLevel: UNNotificationInterruptionLevel = .active
    /// The relevance score (0–1) used by the summary.
    public var relevanceScore: Double = 0
    /// The Focus filter criteria.
    public var filterCriteria: String?
    /// The summary argument (ignored by iOS 15 and later).
    public var summaryArgument = ""
    /// The summary argument count (ignored by iOS 15 and later).
    public var summaryArgumentCount = 0

    /// Creates empty content.
    public init() {}

    /// Whether the content alerts the user with text (a title, subtitle or body). The
    /// service-extension rule of spec §C.7 uses this.
    public var hasAlertText: Bool { !title.isEmpty || !subtitle.isEmpty || !body.isEmpty }

    /// Whether the notification is visible or audible at all (text, sound or badge).
    public var isUserVisible: Bool { hasAlertText || sound != nil || badge != nil }
}

/// The interruption level of a notification (spec §C.10). Raw values match Apple's.
public enum UNNotificationInterruptionLevel: UInt, Sendable, Codable, Hashable, CaseIterable {
    /// Added to the list without lighting the screen or playing a sound.
    case passive = 0
    /// Presented immediately; lights the screen and may play a sound.
    case active = 1
    /// As active, and breaks through system notification controls.
    case timeSensitive = 2
    /// As active, and bypasses the mute switch.
    case critical = 3

    /// The APNs `interruption-level` string for this level.
    public var payloadValue: String {
        switch self {
        case .passive: "passive"
        case .active: "active"
        case .timeSensitive: "time-sensitive"
        case .critical: "critical"
        }
    }

    /// Parses the APNs `interruption-level` string.
    public init?(payloadValue: String) {
        guard let level = Self.allCases.first(where: { $0.payloadValue == payloadValue }) else { return nil }
        self = level
    }
}
