import Foundation
import Synchronization

/// The context of a running content extension (Foundation's `NSExtensionContext` with the
/// UserNotificationsUI additions).
///
/// `mediaPlayingStarted()` / `mediaPlayingPaused()` tell the system that playback changed on
/// its own: the button state changes, and `mediaPlay()` / `mediaPause()` are *not* called
/// (seed 002).
public final class NSExtensionContext: NSObject, Sendable {
    private struct State {
        var isMediaPlaying = false
        var notificationActions: [UNNotificationAction] = []
        var defaultActionRequested = false
        var dismissRequested = false
    }

    private let state = Mutex(State())

    init(actions: [UNNotificationAction]) {
        state.withLock { $0.notificationActions = actions }
        super.init()
    }

    /// Whether media is playing, as the button shows it.
    public var isMediaPlaying: Bool { state.withLock { $0.isMediaPlaying } }

    /// Media started playing by itself.
    public func mediaPlayingStarted() { state.withLock { $0.isMediaPlaying = true } }

    /// Media paused by itself.
    public func mediaPlayingPaused() { state.withLock { $0.isMediaPlaying = false } }

    /// The action buttons shown under the interface; the extension may replace them (iOS 12).
    public var notificationActions: [UNNotificationAction] {
        get { state.withLock { $0.notificationActions } }
        set { state.withLock { $0.notificationActions = newValue } }
    }

    /// Opens the app as if the user tapped the notification (iOS 12).
    public func performNotificationDefaultAction() { state.withLock { $0.defaultActionRequested = true } }

    /// Closes the interface (iOS 12).
    public func dismissNotificationContentExtension() { state.withLock { $0.dismissRequested = true } }

    func setPlaying(_ playing: Bool) { state.withLock { $0.isMediaPlaying = playing } }

    func takeRequests() -> (defaultAction: Bool, dismiss: Bool) {
        state.withLock { state in
            defer {
                state.defaultActionRequested = false
                state.dismissRequested = false
            }
            return (state.defaultActionRequested, state.dismissRequested)
        }
    }
}
