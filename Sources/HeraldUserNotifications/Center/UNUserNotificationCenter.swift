import Foundation
import Synchronization

/// The app's notification center (Apple's `UNUserNotificationCenter`).
///
/// `current()` returns the center of the ``DeviceRuntime`` that is running the calling code
/// (app delegate, notification delegate, service extension, or a block passed to
/// ``DeviceRuntime/withCurrentCenter(_:)``), and otherwise one process-wide center on the wall
/// clock. Each test can therefore use its own runtime without shared state.
///
/// Requests are processed serially, in call order (spec §C.1). Herald calls completion handlers
/// synchronously, before the method returns — a documented choice that keeps tests
/// deterministic.
public final class UNUserNotificationCenter: NSObject, Sendable {
    /// Settings of a center that Apple leaves to the system.
    public struct Configuration: Sendable {
        /// The pending-request limit (64 on iOS, spec §C.3).
        public var pendingRequestLimit = 64
        /// Which requests survive over the limit (UNCONFIRMED, spec §D.8).
        public var pendingRetentionRule = PendingRetentionRule.soonestFiring
        /// How the simulated user answers the first authorization prompt.
        public var userAllowsNotifications = true
        /// Where attachment files are moved; `nil` makes a fresh temporary directory.
        public var attachmentStoreDirectory: URL?
        /// The app bundle directory: attachments inside it are copied, not moved.
        public var bundleDirectory: URL?
        /// Whether content extensions are supported (`supportsContentExtensions`).
        public var supportsContentExtensions = true

        /// The defaults described above.
        public init() {}
    }

    @TaskLocal static var bound: UNUserNotificationCenter?

    private static let processCenter = UNUserNotificationCenter()

    let state: Mutex<NotificationCenterState>
    /// The clock used for triggers and delivery dates.
    public let clock: any NotificationClock
    /// The configuration.
    public let configuration: Configuration
    let attachmentStore: AttachmentStore

    /// Creates a center (Apple's has no public initializer; Herald's exists for hosts and tests).
    public init(clock: any NotificationClock = SystemNotificationClock(), configuration: Configuration = Configuration()) {
        self.clock = clock
        self.configuration = configuration
        let directory =
            configuration.attachmentStoreDirectory
            ?? FileManager.default.temporaryDirectory.appendingPathComponent("herald-attachments-\(UUID().uuidString)", isDirectory: true)
        attachmentStore = AttachmentStore(directory: directory, bundleDirectory: configuration.bundleDirectory)
        state = Mutex(NotificationCenterState())
        super.init()
    }

    /// The center of the running app (see the type's documentation).
    public static func current() -> UNUserNotificationCenter { bound ?? processCenter }

    /// Runs `body` with `self` as ``current()``.
    public func withCurrent<T>(_ body: () throws -> T) rethrows -> T {
        try Self.$bound.withValue(self) { try body() }
    }

    /// Runs an async `body` with `self` as ``current()``.
    public func withCurrentAsync<T>(_ body: () async throws -> T) async rethrows -> T {
        try await Self.$bound.withValue(self) { try await body() }
    }

    /// The delegate (held weakly, as on Apple platforms). Set it before the app finishes
    /// launching so that launch-by-tap responses reach it.
    public var delegate: (any UNUserNotificationCenterDelegate)? {
        get { state.withLock { $0.delegate }.delegate }
        set {
            let reference = NotificationDelegateReference(newValue)
            state.withLock { $0.delegate = reference }
        }
    }

    /// Whether content extensions are supported.
    public var supportsContentExtensions: Bool { configuration.supportsContentExtensions }

    // MARK: Authorization

    /// Asks for permission. The first call "prompts" (the answer is
    /// ``Configuration/userAllowsNotifications``); later calls do not prompt again and report the
    /// stored decision. `.provisional` authorizes quietly without a prompt.
    public func requestAuthorization(
        options: UNAuthorizationOptions = [],
        completionHandler: @escaping @Sendable (Bool, (any Error)?) -> Void
    ) {
        let allows = configuration.userAllowsNotifications
        let granted = state.withLock { state -> Bool in
            switch state.authorizationStatus {
            case .notDetermined where options.contains(.provisional):
                state.authorizationStatus = .provisional
                state.grantedOptions = options
            case .notDetermined, .provisional:
                state.authorizationStatus = allows ? .authorized : .denied
                state.grantedOptions = allows ? options.union(state.grantedOptions) : []
            default:
                break
            }
            return state.authorizationStatus.allowsDelivery
        }
        completionHandler(granted, nil)
    }

    /// The `async` form of ``requestAuthorization(options:completionHandler:)``.
    public func requestAuthorization(options: UNAuthorizationOptions = []) async throws -> Bool {
        let result = Mutex(false)
        requestAuthorization(options: options) { granted, _ in result.withLock { $0 = granted } }
        return result.withLock { $0 }
    }

    /// Reports the current settings.
    public func getNotificationSettings(completionHandler: @escaping @Sendable (UNNotificationSettings) -> Void) {
        completionHandler(state.withLock { $0.settings })
    }

    /// The `async` form of ``getNotificationSettings(completionHandler:)``.
    public func notificationSettings() async -> UNNotificationSettings { state.withLock { $0.settings } }

    /// Simulates the user changing the app's notification settings in the Settings app.
    public func setAuthorization(status: UNAuthorizationStatus, options: UNAuthorizationOptions) {
        state.withLock { state in
            state.authorizationStatus = status
            state.grantedOptions = status.allowsDelivery ? options : []
        }
    }

    // MARK: Categories

    /// Registers all categories at once, replacing those registered before.
    public func setNotificationCategories(_ categories: Set<UNNotificationCategory>) {
        state.withLock { $0.categories = categories }
    }

    /// Reports the registered categories.
    public func getNotificationCategories(completionHandler: @escaping @Sendable (Set<UNNotificationCategory>) -> Void) {
        completionHandler(state.withLock { $0.categories })
    }

    /// The `async` form of ``getNotificationCategories(completionHandler:)``.
    public func notificationCategories() async -> Set<UNNotificationCategory> { state.withLock { $0.categories } }

    /// The registered category with this identifier.
    public func category(withIdentifier identifier: String) -> UNNotificationCategory? {
        state.withLock { $0.categories.first { $0.identifier == identifier } }
    }

    // MARK: Badge

    /// The badge shown on the app icon (0 = none).
    public var badgeCount: Int { state.withLock { $0.badgeAllowed ? $0.badge : 0 } }

    /// Sets the badge. Throws ``UNError/Code/badgeInputInvalid`` for a negative count and
    /// ``UNError/Code/notificationsNotAllowed`` when the app may not badge (a Herald choice).
    public func setBadgeCount(_ newBadgeCount: Int, withCompletionHandler completionHandler: (@Sendable ((any Error)?) -> Void)? = nil) {
        let error = state.withLock { state -> UNError? in
            guard newBadgeCount >= 0 else { return UNError(.badgeInputInvalid, reason: "negative badge count") }
            guard state.badgeAllowed else { return UNError(.notificationsNotAllowed, reason: "badges are not authorized") }
            state.badge = newBadgeCount
            return nil
        }
        completionHandler?(error)
    }

    /// The `async` form of ``setBadgeCount(_:withCompletionHandler:)``.
    public func setBadgeCount(_ newBadgeCount: Int) async throws {
        let result = Mutex<UNError?>(nil)
        setBadgeCount(newBadgeCount) { error in result.withLock { $0 = error as? UNError } }
        if let error = result.withLock({ $0 }) { throw error }
    }
}
