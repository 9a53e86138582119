import Foundation

/// How a content extension answers an action (Apple's
/// `UNNotificationContentExtensionResponseOption`; raw values per spec §C.8).
public enum UNNotificationContentExtensionResponseOption: UInt, Sendable, Codable, Hashable {
    /// Keep the interface open; the app is not told.
    case doNotDismiss = 0
    /// Close the interface; the app is not told.
    case dismiss = 1
    /// Close the interface and forward the action to the app's delegate.
    case dismissAndForwardAction = 2
}

/// The media play/pause button a content extension asks for (Apple's
/// `UNNotificationContentExtensionMediaPlayPauseButtonType`).
public enum UNNotificationContentExtensionMediaPlayPauseButtonType: UInt, Sendable, Codable, Hashable {
    /// No button.
    case none = 0
    /// A button that stays visible and toggles.
    case `default` = 1
    /// A button over the content that hides while playing.
    case overlay = 2
}

/// The custom interface of an expanded notification (Apple's `UNNotificationContentExtension`,
/// from UserNotificationsUI), usually adopted by a ``UIViewController`` subclass.
///
/// With no UIKit on Linux, the interface renders into ``ContentExtensionRendering``: the
/// controller's `title`, its ``consoleLines`` and the media button. The runtime picks the
/// extension by the `UNNotificationExtensionCategory` of its Info.plist.
public protocol UNNotificationContentExtension: AnyObject {
    /// A notification arrived for the interface (again when a new one of the same thread arrives
    /// while it is visible).
    func didReceive(_ notification: UNNotification)

    /// Optional: handle an action. If not implemented, the action goes to the app.
    func didReceive(
        _ response: UNNotificationResponse,
        completionHandler completion: @escaping @Sendable (UNNotificationContentExtensionResponseOption) -> Void
    )

    /// Optional: the media button type (default `.none`).
    var mediaPlayPauseButtonType: UNNotificationContentExtensionMediaPlayPauseButtonType { get }
    /// Optional: the media button frame.
    var mediaPlayPauseButtonFrame: CGRect { get }
    /// Optional: the media button tint.
    var mediaPlayPauseButtonTintColor: UIColor { get }
    /// Optional: the user tapped play.
    func mediaPlay()
    /// Optional: the user tapped pause.
    func mediaPause()

    /// Herald: the text the interface shows, one line each, for a console.
    var consoleLines: [String] { get }
}

extension UNNotificationContentExtension {
    /// Default: not implemented — the action goes to the app.
    public func didReceive(
        _ response: UNNotificationResponse,
        completionHandler completion: @escaping @Sendable (UNNotificationContentExtensionResponseOption) -> Void
    ) {
        ImplementationProbe.markDefault()
    }

    /// Default: no media button.
    public var mediaPlayPauseButtonType: UNNotificationContentExtensionMediaPlayPauseButtonType { .none }
    /// Default: an empty frame.
    public var mediaPlayPauseButtonFrame: CGRect { .zero }
    /// Default: white.
    public var mediaPlayPauseButtonTintColor: UIColor { .white }
    /// Default: nothing.
    public func mediaPlay() {}
    /// Default: nothing.
    public func mediaPause() {}
    /// Default: no lines.
    public var consoleLines: [String] { [] }
}

/// A minimal stand-in for UIKit's `UIViewController`: what a content extension uses of it.
open class UIViewController: NSObject {
    /// The title; shown instead of the app name when the extension's Info.plist sets
    /// `UNNotificationExtensionOverridesDefaultTitle`.
    open var title: String?
    /// The preferred size; the runtime starts it from the Info.plist ratio.
    open var preferredContentSize = CGSize.zero
    /// The extension context (media playback state, dismissal requests).
    public internal(set) var extensionContext: NSExtensionContext?

    /// Creates a controller.
    public override init() { super.init() }

    /// Called once before the first notification (UIKit's `viewDidLoad`).
    open func viewDidLoad() {}
}

/// A color (a stand-in for UIKit's `UIColor`), kept as RGBA components.
public final class UIColor: NSObject, Sendable {
    /// Red, 0–1.
    public let red: Double
    /// Green, 0–1.
    public let green: Double
    /// Blue, 0–1.
    public let blue: Double
    /// Alpha, 0–1.
    public let alpha: Double

    /// Creates a color.
    public init(red: Double, green: Double, blue: Double, alpha: Double) {
        self.red = red
        self.green = green
        self.blue = blue
        self.alpha = alpha
        super.init()
    }

    /// Blue.
    public static var blue: UIColor { UIColor(red: 0, green: 0, blue: 1, alpha: 1) }
    /// Red.
    public static var red: UIColor { UIColor(red: 1, green: 0, blue: 0, alpha: 1) }
    /// White.
    public static var white: UIColor { UIColor(red: 1, green: 1, blue: 1, alpha: 1) }
    /// Black.
    public static var black: UIColor { UIColor(red: 0, green: 0, blue: 0, alpha: 1) }

    /// `#RRGGBBAA`.
    public var hexString: String {
        let parts = [red, green, blue, alpha].map { String(format: "%02X", Int(($0 * 255).rounded())) }
        return "#" + parts.joined()
    }

    /// Equal when the components are equal.
    public override func isEqual(_ object: Any?) -> Bool {
        (object as? UIColor)?.hexString == hexString
    }

    /// A hash of the components.
    public override var hash: Int { hexString.hashValue }
}
