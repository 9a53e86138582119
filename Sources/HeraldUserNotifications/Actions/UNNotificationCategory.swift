import Foundation

/// Options of a ``UNNotificationCategory``. Raw values match Apple's header (spec §C.5).
public struct UNNotificationCategoryOptions: OptionSet, Sendable, Hashable, Codable {
    /// The raw bit mask.
    public let rawValue: UInt
    /// Creates options from a bit mask.
    public init(rawValue: UInt) { self.rawValue = rawValue }

    /// Send ``UNNotificationDismissActionIdentifier`` to the delegate when the user explicitly
    /// dismisses the notification.
    public static let customDismissAction = UNNotificationCategoryOptions(rawValue: 1 << 0)
    /// Allow the category in CarPlay.
    public static let allowInCarPlay = UNNotificationCategoryOptions(rawValue: 1 << 1)
    /// Show the title when previews are hidden.
    public static let hiddenPreviewsShowTitle = UNNotificationCategoryOptions(rawValue: 1 << 2)
    /// Show the subtitle when previews are hidden.
    public static let hiddenPreviewsShowSubtitle = UNNotificationCategoryOptions(rawValue: 1 << 3)
    /// Allow Siri to announce. The raw value (1 << 4) is UNCONFIRMED (spec §C.5).
    public static let allowAnnouncement = UNNotificationCategoryOptions(rawValue: 1 << 4)
}

/// A type of notification with its actions (Apple's `UNNotificationCategory`).
///
/// Register categories with ``UNUserNotificationCenter/setNotificationCategories(_:)``; a
/// notification shows the actions of the registered category whose identifier equals its
/// `categoryIdentifier` (payload `category`).
public final class UNNotificationCategory: NSObject, Sendable {
    /// The identifier matched against `categoryIdentifier`.
    public let identifier: String
    /// The actions, in display order.
    public let actions: [UNNotificationAction]
    /// SiriKit intent identifiers.
    public let intentIdentifiers: [String]
    /// The options.
    public let options: UNNotificationCategoryOptions
    /// The body shown when previews are hidden.
    public let hiddenPreviewsBodyPlaceholder: String?
    /// The summary format used when notifications of this category are grouped.
    public let categorySummaryFormat: String?

    /// Creates a category.
    public init(
        identifier: String,
        actions: [UNNotificationAction],
        intentIdentifiers: [String],
        options: UNNotificationCategoryOptions = []
    ) {
        self.identifier = identifier
        self.actions = actions
        self.intentIdentifiers = intentIdentifiers
        self.options = options
        self.hiddenPreviewsBodyPlaceholder = nil
        self.categorySummaryFormat = nil
        super.init()
    }

    /// Creates a category with a placeholder for hidden previews.
    public init(
        identifier: String,
        actions: [UNNotificationAction],
        intentIdentifiers: [String],
        hiddenPreviewsBodyPlaceholder: String,
        options: UNNotificationCategoryOptions = []
    ) {
        self.identifier = identifier
        self.actions = actions
        self.intentIdentifiers = intentIdentifiers
        self.options = options
        self.hiddenPreviewsBodyPlaceholder = hiddenPreviewsBodyPlaceholder
        self.categorySummaryFormat = nil
        super.init()
    }

    /// Creates a category with a placeholder and a summary format.
    public init(
        identifier: String,
        actions: [UNNotificationAction],
        intentIdentifiers: [String],
        hiddenPreviewsBodyPlaceholder: String?,
        categorySummaryFormat: String?,
        options: UNNotificationCategoryOptions = []
    ) {
        self.identifier = identifier
        self.actions = actions
        self.intentIdentifiers = intentIdentifiers
        self.options = options
        self.hiddenPreviewsBodyPlaceholder = hiddenPreviewsBodyPlaceholder
        self.categorySummaryFormat = categorySummaryFormat
        super.init()
    }

    /// Categories are equal when all their fields are equal.
    public override func isEqual(_ object: Any?) -> Bool {
        guard let other = object as? UNNotificationCategory else { return false }
        return other.identifier == identifier && other.actions == actions && other.intentIdentifiers == intentIdentifiers
            && other.options == options && other.hiddenPreviewsBodyPlaceholder == hiddenPreviewsBodyPlaceholder
            && other.categorySummaryFormat == categorySummaryFormat
    }

    /// A hash of the identifier.
    public override var hash: Int { identifier.hashValue }
}
