import Foundation
import HeraldUserNotifications

/// A notification content extension: its Info.plist `NSExtensionAttributes` (under their
/// Info.plist names) and its interface — Swift code supplied by the host, or the built-in one
/// that draws lines from templates.
public struct ContentExtensionManifest: Sendable, Hashable, Codable {
    /// The extension's bundle name (`CFBundleName`), shown in snapshots.
    public var name: String
    /// `UNNotificationExtensionCategory`: the categories it draws (a string or an array in JSON).
    public var categories: [String]
    /// `UNNotificationExtensionInitialContentSizeRatio`: height / width of the initial view.
    public var initialContentSizeRatio: Double
    /// `UNNotificationExtensionDefaultContentHidden`.
    public var defaultContentHidden: Bool
    /// `UNNotificationExtensionOverridesDefaultTitle`.
    public var overridesDefaultTitle: Bool
    /// `UNNotificationExtensionUserInteractionEnabled`.
    public var userInteractionEnabled: Bool
    /// The name of a Swift controller the host supplies in ``InProcessCode/contentExtensions``.
    public var code: String?
    /// Built-in: the controller's `title` (the header when ``overridesDefaultTitle``).
    public var title: ContentTemplate?
    /// Built-in: the interface's lines; empty results are left out.
    public var lines: [ContentTemplate]
    /// Built-in: the media play/pause button, if any.
    public var mediaPlayPauseButton: MediaButtonManifest?
    /// Built-in: how the interface answers an action; `nil` leaves actions to the app (the
    /// controller does not implement `didReceive(_:completionHandler:)`).
    public var actionResponse: UNNotificationContentExtensionResponseOption?

    /// Creates a content extension description.
    public init(
        name: String = "NotificationContent",
        categories: [String],
        initialContentSizeRatio: Double,
        defaultContentHidden: Bool = false,
        overridesDefaultTitle: Bool = false,
        userInteractionEnabled: Bool = false,
        code: String? = nil,
        title: ContentTemplate? = nil,
        lines: [ContentTemplate] = ContentExtensionManifest.defaultLines,
        mediaPlayPauseButton: MediaButtonManifest? = nil,
        actionResponse: UNNotificationContentExtensionResponseOption? = nil
    ) {
        self.name = name
        self.categories = categories
        self.initialContentSizeRatio = initialContentSizeRatio
        self.defaultContentHidden = defaultContentHidden
        self.overridesDefaultTitle = overridesDefaultTitle
        self.userInteractionEnabled = userInteractionEnabled
        self.code = code
        self.title = title
        self.lines = lines
        self.mediaPlayPauseButton = mediaPlayPauseButton
        self.actionResponse = actionResponse
    }

    /// The built-in interface's default lines: `{title}` and `{body}`.
    public static let defaultLines: [ContentTemplate] = [ContentTemplate.placeholder("title"), ContentTemplate.placeholder("body")]

    /// The runtime's attributes.
    public var attributes: ContentExtensionAttributes {
        ContentExtensionAttributes(
            categories: categories,
            initialContentSizeRatio: initialContentSizeRatio,
            defaultContentHidden: defaultContentHidden,
            overridesDefaultTitle: overridesDefaultTitle,
            userInteractionEnabled: userInteractionEnabled,
            name: name
        )
    }

    enum CodingKeys: String, CodingKey, CaseIterable {
        case name
        case categories = "UNNotificationExtensionCategory"
        case initialContentSizeRatio = "UNNotificationExtensionInitialContentSizeRatio"
        case defaultContentHidden = "UNNotificationExtensionDefaultContentHidden"
        case overridesDefaultTitle = "UNNotificationExtensionOverridesDefaultTitle"
        case userInteractionEnabled = "UNNotificationExtensionUserInteractionEnabled"
        case code, title, lines, mediaPlayPauseButton, actionResponse
    }

    /// Decodes the extension; the two required Info.plist keys are checked as iOS does.
    public init(from decoder: any Decoder) throws {
        try decoder.rejectUnknownKeys(CodingKeys.self)
        let container = try decoder.container(keyedBy: CodingKeys.self)
        name = try container.decode(.name, or: "NotificationContent")
        if let single = try? container.decode(String.self, forKey: .categories) {
            categories = [single]
        } else {
            categories = try container.decode([String].self, forKey: .categories)
        }
        guard !categories.isEmpty, !categories.contains("") else {
            throw container.invalid(.categories, "needs at least one category identifier")
        }
        initialContentSizeRatio = try container.decode(Double.self, forKey: .initialContentSizeRatio)
        guard initialContentSizeRatio > 0, initialContentSizeRatio.isFinite else {
            throw container.invalid(.initialContentSizeRatio, "must be a number > 0 (height / width)")
        }
        defaultContentHidden = try container.decode(.defaultContentHidden, or: false)
        overridesDefaultTitle = try container.decode(.overridesDefaultTitle, or: false)
        userInteractionEnabled = try container.decode(.userInteractionEnabled, or: false)
        code = try container.decodeIfPresent(String.self, forKey: .code)
        title = try container.decodeIfPresent(ContentTemplate.self, forKey: .title)
        lines = try container.decode(.lines, or: Self.defaultLines)
        mediaPlayPauseButton = try container.decodeIfPresent(MediaButtonManifest.self, forKey: .mediaPlayPauseButton)
        actionResponse = try container.decodeNameIfPresent(.actionResponse, table: ManifestNames.responseOptions)
        if code != nil {
            for key in [CodingKeys.title, .lines, .mediaPlayPauseButton, .actionResponse] where container.contains(key) {
                throw container.invalid(key, "not used with \"code\" (the Swift controller draws the interface)")
            }
        }
    }

    /// Encodes every field, defaults included.
    public func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: CodingKeys.self)
        try container.encode(name, forKey: .name)
        try container.encode(categories, forKey: .categories)
        try container.encode(initialContentSizeRatio, forKey: .initialContentSizeRatio)
        try container.encode(defaultContentHidden, forKey: .defaultContentHidden)
        try container.encode(overridesDefaultTitle, forKey: .overridesDefaultTitle)
        try container.encode(userInteractionEnabled, forKey: .userInteractionEnabled)
        if let code {
            try container.encode(code, forKey: .code)
            return
        }
        try container.encodeIfPresent(title, forKey: .title)
        try container.encode(lines, forKey: .lines)
        try container.encodeIfPresent(mediaPlayPauseButton, forKey: .mediaPlayPauseButton)
        if let actionResponse {
            try container.encode(ManifestNames.name(of: actionResponse, in: ManifestNames.responseOptions), forKey: .actionResponse)
        }
    }
}

/// The media play/pause button of the built-in content extension.
public struct MediaButtonManifest: Sendable, Hashable, Codable {
    /// `none`, `default` or `overlay`.
    public var type: UNNotificationContentExtensionMediaPlayPauseButtonType
    /// x, y, width, height in points.
    public var frame: [Double]
    /// The tint, `#RRGGBB` or `#RRGGBBAA`.
    public var tint: String

    /// Creates a button description.
    public init(
        type: UNNotificationContentExtensionMediaPlayPauseButtonType = .default,
        frame: [Double] = [0, 0, 44, 44],
        tint: String = "#FFFFFFFF"
    ) {
        self.type = type
        self.frame = frame
        self.tint = tint
    }

    /// The tint as a color (white when unreadable; decoding refuses unreadable tints).
    public var tintColor: UIColor { Self.color(hex: tint) ?? .white }

    enum CodingKeys: String, CodingKey, CaseIterable {
        case type, frame, tint
    }

    /// Decodes the button.
    public init(from decoder: any Decoder) throws {
        try decoder.rejectUnknownKeys(CodingKeys.self)
        let container = try decoder.container(keyedBy: CodingKeys.self)
        type = try container.decodeName(.type, table: ManifestNames.mediaButtonTypes, or: "default")
        frame = try container.decode(.frame, or: [0, 0, 44, 44])
        tint = try container.decode(.tint, or: "#FFFFFFFF")
        guard frame.count == 4, frame.allSatisfy({ $0.isFinite }), frame[2] >= 0, frame[3] >= 0 else {
            throw container.invalid(.frame, "must be [x, y, width, height] with a width and height ≥ 0")
        }
        guard Self.color(hex: tint) != nil else { throw container.invalid(.tint, "must be #RRGGBB or #RRGGBBAA") }
    }

    /// Encodes the button.
    public func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: CodingKeys.self)
        try container.encode(ManifestNames.name(of: type, in: ManifestNames.mediaButtonTypes), forKey: .type)
        try container.encode(frame, forKey: .frame)
        try container.encode(tint, forKey: .tint)
    }

    static func color(hex: String) -> UIColor? {
        guard hex.hasPrefix("#"), hex.count == 7 || hex.count == 9, let value = UInt64(hex.dropFirst(), radix: 16) else { return nil }
        let rgba = hex.count == 7 ? value << 8 | 0xFF : value
        func component(_ shift: UInt64) -> Double { Double((rgba >> shift) & 0xFF) / 255 }
        return UIColor(red: component(24), green: component(16), blue: component(8), alpha: component(0))
    }
}
