import Foundation

/// What an expanded notification with a content extension shows, as a console can display it.
public struct ContentExtensionRendering: Sendable, Hashable, Codable {
    /// The media button as shown.
    public struct MediaButton: Sendable, Hashable, Codable {
        /// `none`, `default` or `overlay`.
        public var type: UNNotificationContentExtensionMediaPlayPauseButtonType
        /// x, y, width, height.
        public var frame: [Double]
        /// `#RRGGBBAA`.
        public var tint: String
        /// Whether it shows "playing".
        public var isPlaying: Bool
    }

    /// The extension's name.
    public var extensionName: String
    /// The notification shown.
    public var notificationIdentifier: String
    /// The header title: the controller's title if the extension overrides it, else the app's.
    public var headerTitle: String
    /// The custom interface's lines.
    public var lines: [String]
    /// Width and height of the interface (from the ratio on a 320-point wide screen, or the
    /// controller's preferred size).
    public var size: [Double]
    /// Whether the default title/body is shown under the interface.
    public var showsDefaultContent: Bool
    /// The default content, when shown.
    public var defaultContent: [String]
    /// Whether touches reach the interface.
    public var userInteractionEnabled: Bool
    /// The media button, if any.
    public var mediaButton: MediaButton?
    /// Action button titles (always shown, even with hidden default content).
    public var actions: [String]

    /// Plain text for a console.
    public var consoleText: String {
        var text = ["┌ \(headerTitle) [\(extensionName)]"]
        text += lines.map { "│ \($0)" }
        if let mediaButton {
            text.append("│ [\(mediaButton.isPlaying ? "❚❚" : "▶")] \(mediaButton.type) \(mediaButton.tint)")
        }
        if showsDefaultContent { text += defaultContent.map { "│ \($0)" } }
        if !actions.isEmpty { text.append("│ " + actions.map { "[\($0)]" }.joined(separator: " ")) }
        text.append("└")
        return text.joined(separator: "\n")
    }
}
