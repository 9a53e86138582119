import Foundation

/// Options of a ``UNNotificationAction``. Raw values match Apple's (spec §C.5).
public struct UNNotificationActionOptions: OptionSet, Sendable, Hashable, Codable {
    /// The raw bit mask.
    public let rawValue: UInt
    /// Creates options from a bit mask.
    public init(rawValue: UInt) { self.rawValue = rawValue }

    /// The action runs only on an unlocked device.
    public static let authenticationRequired = UNNotificationActionOptions(rawValue: 1 << 0)
    /// The action is shown as destructive.
    public static let destructive = UNNotificationActionOptions(rawValue: 1 << 1)
    /// The action launches the app in the foreground.
    public static let foreground = UNNotificationActionOptions(rawValue: 1 << 2)
}

/// A button shown with a notification of a registered category (Apple's
/// `UNNotificationAction`).
public class UNNotificationAction: NSObject, @unchecked Sendable {
    // Immutable (only `let`s) and not `open`: the only subclass is UNTextInputNotificationAction.

    /// The identifier sent back in ``UNNotificationResponse/actionIdentifier``. Must be unique
    /// across all categories.
    public let identifier: String
    /// The button title.
    public let title: String
    /// The options.
    public let options: UNNotificationActionOptions
    /// The image shown beside the title (iOS 15).
    public let icon: UNNotificationActionIcon?

    /// Creates an action with an icon.
    public init(identifier: String, title: String, options: UNNotificationActionOptions = [], icon: UNNotificationActionIcon?) {
        self.identifier = identifier
        self.title = title
        self.options = options
        self.icon = icon
        super.init()
    }

    /// Creates an action.
    public convenience init(identifier: String, title: String, options: UNNotificationActionOptions = []) {
        self.init(identifier: identifier, title: title, options: options, icon: nil)
    }

    /// Actions are equal when identifier, title, options and icon are equal.
    public override func isEqual(_ object: Any?) -> Bool {
        guard let other = object as? UNNotificationAction else { return false }
        return other.identifier == identifier && other.title == title && other.options == options && other.icon == icon
            && (other as? UNTextInputNotificationAction) == (self as? UNTextInputNotificationAction)
    }

    /// A hash of the identifier.
    public override var hash: Int { identifier.hashValue }
}

/// An action that asks the user for text (Apple's `UNTextInputNotificationAction`); the
/// response is a ``UNTextInputNotificationResponse``.
public final class UNTextInputNotificationAction: UNNotificationAction, @unchecked Sendable {
    /// The title of the send button.
    public let textInputButtonTitle: String
    /// The placeholder shown in the text field.
    public let textInputPlaceholder: String

    /// Creates a text input action with an icon.
    public init(
        identifier: String,
        title: String,
        options: UNNotificationActionOptions = [],
        icon: UNNotificationActionIcon?,
        textInputButtonTitle: String,
        textInputPlaceholder: String
    ) {
        self.textInputButtonTitle = textInputButtonTitle
        self.textInputPlaceholder = textInputPlaceholder
        super.init(identifier: identifier, title: title, options: options, icon: icon)
    }

    /// Creates a text input action.
    public convenience init(
        identifier: String,
        title: String,
        options: UNNotificationActionOptions = [],
        textInputButtonTitle: String,
        textInputPlaceholder: String
    ) {
        self.init(
            identifier: identifier,
            title: title,
            options: options,
            icon: nil,
            textInputButtonTitle: textInputButtonTitle,
            textInputPlaceholder: textInputPlaceholder
        )
    }

    /// Creates a text input action with empty button title and placeholder: the base class's
    /// initialiser, which Apple's subclass inherits (`init(identifier:title:options:)` too).
    public override init(identifier: String, title: String, options: UNNotificationActionOptions = [], icon: UNNotificationActionIcon?) {
        self.textInputButtonTitle = ""
        self.textInputPlaceholder = ""
        super.init(identifier: identifier, title: title, options: options, icon: icon)
    }

    /// Equal when the action and the two texts are equal.
    public override func isEqual(_ object: Any?) -> Bool {
        guard let other = object as? UNTextInputNotificationAction else { return false }
        return other.identifier == identifier && other.title == title && other.options == options && other.icon == icon
            && other.textInputButtonTitle == textInputButtonTitle && other.textInputPlaceholder == textInputPlaceholder
    }
}
