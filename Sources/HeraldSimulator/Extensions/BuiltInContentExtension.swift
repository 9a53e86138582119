import Foundation
import HeraldUserNotifications

/// The content extension interface a manifest describes: a title and lines from templates, an
/// optional media button, and an optional answer to actions.
final class BuiltInContentExtension: UIViewController, UNNotificationContentExtension {
    private let manifest: ContentExtensionManifest
    private var content = NotificationContentValue()
    private var received = 0

    init(manifest: ContentExtensionManifest) {
        self.manifest = manifest
        super.init()
    }

    func didReceive(_ notification: UNNotification) {
        content = notification.request.content.value
        received += 1
        if let title = manifest.title { self.title = title.render(content: content) }
    }

    func didReceive(
        _ response: UNNotificationResponse,
        completionHandler completion: @escaping @Sendable (UNNotificationContentExtensionResponseOption) -> Void
    ) {
        guard let option = manifest.actionResponse else {
            // Not implemented: the runtime sends the action to the app (spec §C.8). Calling a type
            // without the method runs the protocol's default, which tells the runtime so.
            return NoActionHandling().didReceive(response, completionHandler: completion)
        }
        completion(option)
    }

    var mediaPlayPauseButtonType: UNNotificationContentExtensionMediaPlayPauseButtonType {
        manifest.mediaPlayPauseButton?.type ?? .none
    }

    var mediaPlayPauseButtonFrame: CGRect {
        guard let frame = manifest.mediaPlayPauseButton?.frame, frame.count == 4 else { return .zero }
        return CGRect(x: frame[0], y: frame[1], width: frame[2], height: frame[3])
    }

    var mediaPlayPauseButtonTintColor: UIColor { manifest.mediaPlayPauseButton?.tintColor ?? .white }

    var consoleLines: [String] {
        manifest.lines.map { $0.render(content: content) }.filter { !$0.isEmpty }
    }
}

/// A controller that implements none of the optional methods.
private final class NoActionHandling: UNNotificationContentExtension {
    func didReceive(_ notification: UNNotification) {}
}
