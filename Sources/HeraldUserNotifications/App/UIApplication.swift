import Foundation
import Synchronization

/// Where an app is in its life cycle. Herald's states are finer than UIKit's
/// `UIApplication.State` because the delivery rules of remote notifications depend on them
/// (seed 003, spec §C.9).
public enum AppLifecycleState: String, Sendable, Codable, Hashable, CaseIterable {
    /// Never launched, or ended by the system: a background push may launch it.
    case notRunning
    /// Running and visible.
    case foreground
    /// Running, not visible, executing code.
    case background
    /// In memory, not executing.
    case suspended
    /// Force-quit by the user in the app switcher: nothing launches it in the background until
    /// the user opens it again.
    case terminatedByUser
}

/// Background fetch results (UIKit's `UIBackgroundFetchResult`).
public enum UIBackgroundFetchResult: UInt, Sendable, Codable, Hashable {
    /// New data was downloaded.
    case newData = 0
    /// There was no new data.
    case noData = 1
    /// The fetch failed.
    case failed = 2
}

/// The app object (a stand-in for UIKit's `UIApplication`). ``shared`` is the application of
/// the ``DeviceRuntime`` running the calling code.
public final class UIApplication: NSObject, Sendable {
    /// UIKit's coarse state.
    public enum State: Int, Sendable, Codable {
        /// In the foreground, receiving events.
        case active = 0
        /// In the foreground, not receiving events.
        case inactive = 1
        /// In the background (or not running).
        case background = 2
    }

    /// Keys of the launch options dictionary.
    public struct LaunchOptionsKey: RawRepresentable, Hashable, Sendable {
        /// The key.
        public let rawValue: String
        /// Creates a key.
        public init(rawValue: String) { self.rawValue = rawValue }
        /// The payload of the remote notification the user tapped to launch the app.
        public static let remoteNotification = LaunchOptionsKey(rawValue: "UIApplicationLaunchOptionsRemoteNotificationKey")
    }

    @TaskLocal static var bound: UIApplication?
    private static let processWide = UIApplication(backgroundModes: [])

    private struct State_ {
        var lifecycle = AppLifecycleState.notRunning
        var delegate: AppObject<any UIApplicationDelegate>?
        var registeredForRemoteNotifications = false
    }

    private let state = Mutex(State_())
    /// The Info.plist `UIBackgroundModes` (for example `remote-notification`).
    public let backgroundModes: Set<String>

    init(backgroundModes: Set<String>) {
        self.backgroundModes = backgroundModes
        super.init()
    }

    /// The application of the running app.
    public static var shared: UIApplication { bound ?? processWide }

    /// The life-cycle state.
    public var lifecycleState: AppLifecycleState {
        get { state.withLock { $0.lifecycle } }
    }

    /// UIKit's state: `.active` in the foreground, otherwise `.background`.
    public var applicationState: State { lifecycleState == .foreground ? .active : .background }

    /// The app delegate of the running process (`nil` when not running).
    public var delegate: (any UIApplicationDelegate)? { state.withLock { $0.delegate }?.object }

    /// Whether the app asked for a device token.
    public var isRegisteredForRemoteNotifications: Bool { state.withLock { $0.registeredForRemoteNotifications } }

    /// Asks for a device token; the runtime answers through the delegate when it has one.
    public func registerForRemoteNotifications() { state.withLock { $0.registeredForRemoteNotifications = true } }

    /// Whether `remote-notification` is among the background modes.
    public var handlesRemoteNotificationsInBackground: Bool { backgroundModes.contains("remote-notification") }

    func setLifecycle(_ lifecycle: AppLifecycleState) { state.withLock { $0.lifecycle = lifecycle } }

    func setDelegate(_ delegate: (any UIApplicationDelegate)?) {
        let reference = delegate.map { AppObject(object: $0) }
        state.withLock { $0.delegate = reference }
    }
}
