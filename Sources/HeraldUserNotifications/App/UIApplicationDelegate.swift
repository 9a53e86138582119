import Foundation

/// The app's delegate (a stand-in for UIKit's `UIApplicationDelegate`), with the calls the
/// notification rules use. Every method is optional.
///
/// Like Apple's, it does not require `Sendable`. Apple's protocol is `@MainActor`; Herald's is not
/// (the runtime has no main thread), so a delegate declared `@MainActor` conforms with
/// `nonisolated` methods or a `@preconcurrency` conformance. The runtime creates a new delegate each time the app process starts (launch), and
/// drops it when the app is terminated.
public protocol UIApplicationDelegate: AnyObject {
    /// The app finished launching; `launchOptions[.remoteNotification]` holds the payload when
    /// the user launched it by tapping a remote notification. Set the notification center's
    /// delegate here.
    func application(_ application: UIApplication, didFinishLaunchingWithOptions launchOptions: [UIApplication.LaunchOptionsKey: Any]?) -> Bool

    /// A remote notification arrived for the running app (foreground, or woken in the background
    /// by `content-available`), or the user opened the app from one when no notification delegate
    /// handles responses. Call the handler within 30 s.
    func application(
        _ application: UIApplication,
        didReceiveRemoteNotification userInfo: [AnyHashable: Any],
        fetchCompletionHandler completionHandler: @escaping @Sendable (UIBackgroundFetchResult) -> Void
    )

    /// The `async` form of the call above.
    func application(_ application: UIApplication, didReceiveRemoteNotification userInfo: [AnyHashable: Any]) async -> UIBackgroundFetchResult

    /// The device token arrived after `registerForRemoteNotifications()`.
    func application(_ application: UIApplication, didRegisterForRemoteNotificationsWithDeviceToken deviceToken: Data)

    /// The app became active (foreground).
    func applicationDidBecomeActive(_ application: UIApplication)

    /// The app moved to the background.
    func applicationDidEnterBackground(_ application: UIApplication)

    /// The app is about to enter the foreground from the background.
    func applicationWillEnterForeground(_ application: UIApplication)
}

extension UIApplicationDelegate {
    /// Default: returns true.
    public func application(
        _ application: UIApplication,
        didFinishLaunchingWithOptions launchOptions: [UIApplication.LaunchOptionsKey: Any]?
    ) -> Bool { true }

    /// Default: not implemented.
    public func application(
        _ application: UIApplication,
        didReceiveRemoteNotification userInfo: [AnyHashable: Any],
        fetchCompletionHandler completionHandler: @escaping @Sendable (UIBackgroundFetchResult) -> Void
    ) {
        ImplementationProbe.markDefault()
    }

    /// Default: not implemented.
    public func application(
        _ application: UIApplication,
        didReceiveRemoteNotification userInfo: [AnyHashable: Any]
    ) async
        -> UIBackgroundFetchResult
    {
        ImplementationProbe.markDefault()
        return .noData
    }

    /// Default: nothing.
    public func application(_ application: UIApplication, didRegisterForRemoteNotificationsWithDeviceToken deviceToken: Data) {}
    /// Default: nothing.
    public func applicationDidBecomeActive(_ application: UIApplication) {}
    /// Default: nothing.
    public func applicationDidEnterBackground(_ application: UIApplication) {}
    /// Default: nothing.
    public func applicationWillEnterForeground(_ application: UIApplication) {}
}
