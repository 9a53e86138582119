import Foundation

/// A call the system made into the app, recorded for tests and the delivery trace.
public struct AppCall: RawRepresentable, Hashable, Sendable, Codable, CustomStringConvertible {
    /// The method's Swift name.
    public let rawValue: String
    /// Creates a call name.
    public init(rawValue: String) { self.rawValue = rawValue }

    /// `application(_:didFinishLaunchingWithOptions:)`.
    public static let didFinishLaunching = AppCall(rawValue: "application(_:didFinishLaunchingWithOptions:)")
    /// `application(_:didReceiveRemoteNotification:fetchCompletionHandler:)`.
    public static let didReceiveRemoteNotification = AppCall(
        rawValue: "application(_:didReceiveRemoteNotification:fetchCompletionHandler:)"
    )
    /// `application(_:didRegisterForRemoteNotificationsWithDeviceToken:)`.
    public static let didRegisterForRemoteNotifications = AppCall(
        rawValue: "application(_:didRegisterForRemoteNotificationsWithDeviceToken:)"
    )
    /// `applicationDidBecomeActive(_:)`.
    public static let didBecomeActive = AppCall(rawValue: "applicationDidBecomeActive(_:)")
    /// `applicationDidEnterBackground(_:)`.
    public static let didEnterBackground = AppCall(rawValue: "applicationDidEnterBackground(_:)")
    /// `applicationWillEnterForeground(_:)`.
    public static let willEnterForeground = AppCall(rawValue: "applicationWillEnterForeground(_:)")
    /// `userNotificationCenter(_:willPresent:withCompletionHandler:)`.
    public static let willPresent = AppCall(rawValue: "userNotificationCenter(_:willPresent:withCompletionHandler:)")
    /// `userNotificationCenter(_:didReceive:withCompletionHandler:)`.
    public static let didReceiveResponse = AppCall(rawValue: "userNotificationCenter(_:didReceive:withCompletionHandler:)")
    /// The service extension's `didReceive(_:withContentHandler:)`.
    public static let serviceExtensionDidReceive = AppCall(rawValue: "UNNotificationServiceExtension.didReceive(_:withContentHandler:)")
    /// The service extension's `serviceExtensionTimeWillExpire()`.
    public static let serviceExtensionTimeWillExpire = AppCall(rawValue: "UNNotificationServiceExtension.serviceExtensionTimeWillExpire()")
    /// A content extension's `didReceive(_:)` for a notification.
    public static let contentExtensionDidReceiveNotification = AppCall(rawValue: "UNNotificationContentExtension.didReceive(_:)")
    /// A content extension's `didReceive(_:completionHandler:)` for an action.
    public static let contentExtensionDidReceiveResponse = AppCall(
        rawValue: "UNNotificationContentExtension.didReceive(_:completionHandler:)"
    )
    /// A content extension's `mediaPlay()`.
    public static let mediaPlay = AppCall(rawValue: "UNNotificationContentExtension.mediaPlay()")
    /// A content extension's `mediaPause()`.
    public static let mediaPause = AppCall(rawValue: "UNNotificationContentExtension.mediaPause()")

    /// The raw name.
    public var description: String { rawValue }
}

/// One step of what the device did, in order: the device's part of the delivery trace.
public struct DeviceEvent: Sendable, Hashable, Codable {
    /// What happened.
    public struct Kind: RawRepresentable, Hashable, Sendable, Codable {
        /// The name.
        public let rawValue: String
        /// Creates a kind.
        public init(rawValue: String) { self.rawValue = rawValue }

        /// A remote notification arrived.
        public static let received = Kind(rawValue: "received")
        /// The service extension ran (detail: the outcome).
        public static let modified = Kind(rawValue: "modified")
        /// An attachment was rejected before display (detail: the error).
        public static let attachmentRejected = Kind(rawValue: "attachment-rejected")
        /// The notification was shown (detail: the presentation).
        public static let displayed = Kind(rawValue: "displayed")
        /// A delivered notification with the same identifier was replaced.
        public static let replaced = Kind(rawValue: "replaced")
        /// The notification was not shown (detail: why).
        public static let notDisplayed = Kind(rawValue: "not-displayed")
        /// The system called the app (detail: the method).
        public static let appCalled = Kind(rawValue: "app-called")
        /// The app's state changed (detail: the new state).
        public static let appState = Kind(rawValue: "app-state")
        /// A background push exceeded the budget and is held.
        public static let held = Kind(rawValue: "held")
        /// A held background push was discarded.
        public static let discarded = Kind(rawValue: "discarded")
        /// A completion handler was not called within its budget.
        public static let expired = Kind(rawValue: "expired")
        /// The user acted on a notification (detail: the action).
        public static let acted = Kind(rawValue: "acted")
    }

    /// When (on the runtime's clock).
    public var date: Date
    /// What.
    public var kind: Kind
    /// The notification concerned, if any.
    public var notificationIdentifier: String?
    /// Details.
    public var detail: String
}
