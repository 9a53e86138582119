import Foundation

/// The `NSExtensionAttributes` of a notification content extension, read from its Info.plist
/// (spec §C.8).
public struct ContentExtensionAttributes: Sendable, Hashable, Codable {
    /// The extension point a content extension declares.
    public static let extensionPointIdentifier = "com.apple.usernotifications.content-extension"

    /// The categories the extension handles (`UNNotificationExtensionCategory`, a string or an
    /// array of strings).
    public var categories: [String]
    /// Height/width of the initial view (`UNNotificationExtensionInitialContentSizeRatio`).
    public var initialContentSizeRatio: Double
    /// Hide the default title/body under the interface (`…DefaultContentHidden`, default NO).
    public var defaultContentHidden = false
    /// Show the controller's `title` instead of the app name (`…OverridesDefaultTitle`).
    public var overridesDefaultTitle = false
    /// Deliver touches to the interface (`…UserInteractionEnabled`, iOS 12).
    public var userInteractionEnabled = false
    /// The bundle name of the extension, for display.
    public var name: String

    /// Creates attributes directly.
    public init(
        categories: [String],
        initialContentSizeRatio: Double,
        defaultContentHidden: Bool = false,
        overridesDefaultTitle: Bool = false,
        userInteractionEnabled: Bool = false,
        name: String = "NotificationContent"
    ) {
        self.categories = categories
        self.initialContentSizeRatio = initialContentSizeRatio
        self.defaultContentHidden = defaultContentHidden
        self.overridesDefaultTitle = overridesDefaultTitle
        self.userInteractionEnabled = userInteractionEnabled
        self.name = name
    }

    /// Why an Info.plist is not a valid content-extension description.
    public struct InvalidInfoPlist: Error, Sendable, Hashable {
        /// The reason.
        public let reason: String
    }

    /// Reads an Info.plist file (XML or binary).
    public init(contentsOf url: URL) throws {
        let data = try Data(contentsOf: url)
        guard let root = try PropertyListSerialization.propertyList(from: data, format: nil) as? [String: Any] else {
            throw InvalidInfoPlist(reason: "the root is not a dictionary")
        }
        try self.init(infoDictionary: root)
    }

    /// Reads an Info.plist dictionary.
    public init(infoDictionary root: [String: Any]) throws {
        guard let ext = root["NSExtension"] as? [String: Any] else { throw InvalidInfoPlist(reason: "no NSExtension dictionary") }
        guard (ext["NSExtensionPointIdentifier"] as? String) == Self.extensionPointIdentifier else {
            throw InvalidInfoPlist(reason: "NSExtensionPointIdentifier is not \(Self.extensionPointIdentifier)")
        }
        guard let attributes = ext["NSExtensionAttributes"] as? [String: Any] else {
            throw InvalidInfoPlist(reason: "no NSExtensionAttributes dictionary")
        }
        switch attributes["UNNotificationExtensionCategory"] {
        case let single as String:
            categories = [single]
        case let many as [Any]:
            categories = many.compactMap { $0 as? String }
        default:
            throw InvalidInfoPlist(reason: "UNNotificationExtensionCategory (required) is missing")
        }
        guard !categories.isEmpty else { throw InvalidInfoPlist(reason: "UNNotificationExtensionCategory is empty") }
        guard let ratio = Self.number(attributes["UNNotificationExtensionInitialContentSizeRatio"]), ratio > 0 else {
            throw InvalidInfoPlist(reason: "UNNotificationExtensionInitialContentSizeRatio (required) is missing")
        }
        initialContentSizeRatio = ratio
        defaultContentHidden = Self.flag(attributes["UNNotificationExtensionDefaultContentHidden"])
        overridesDefaultTitle = Self.flag(attributes["UNNotificationExtensionOverridesDefaultTitle"])
        userInteractionEnabled = Self.flag(attributes["UNNotificationExtensionUserInteractionEnabled"])
        name = (root["CFBundleName"] as? String) ?? (root["CFBundleDisplayName"] as? String) ?? "NotificationContent"
    }

    private static func number(_ value: Any?) -> Double? {
        if let string = value as? String { return Double(string) }
        return value.flatMap { JSONValue(any: $0)?.doubleValue }
    }

    private static func flag(_ value: Any?) -> Bool {
        if let string = value as? String { return ["yes", "true", "1"].contains(string.lowercased()) }
        return value.flatMap { JSONValue(any: $0)?.intValue } == 1
    }
}

/// A content extension installed on the device: its Info.plist attributes and how to create
/// its view controller.
public struct ContentExtensionRegistration: Sendable {
    /// The attributes.
    public let attributes: ContentExtensionAttributes
    /// Creates the view controller for one expanded notification.
    public let makeController: @Sendable () -> any UNNotificationContentExtension

    /// Registers an extension described by an Info.plist file.
    public init(infoPlist: URL, makeController: @escaping @Sendable () -> any UNNotificationContentExtension) throws {
        self.attributes = try ContentExtensionAttributes(contentsOf: infoPlist)
        self.makeController = makeController
    }

    /// Registers an extension with attributes given in code.
    public init(attributes: ContentExtensionAttributes, makeController: @escaping @Sendable () -> any UNNotificationContentExtension) {
        self.attributes = attributes
        self.makeController = makeController
    }
}
