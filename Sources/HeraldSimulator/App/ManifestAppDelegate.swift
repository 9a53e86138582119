import Foundation
import HeraldUserNotifications

/// The app delegate a manifest's `delegate` describes. At launch it sets the notification
/// delegate (which the center holds weakly, so this object keeps it); it answers background
/// fetches as told.
final class ManifestAppDelegate: UIApplicationDelegate {
    private let fetchCompletion: DelegateManifest.FetchCompletion
    private let notificationDelegate: ManifestNotificationDelegate?

    init(_ manifest: DelegateManifest) {
        fetchCompletion = manifest.fetchCompletion
        notificationDelegate =
            manifest.setsNotificationDelegate
            ? ManifestNotificationDelegate(
                willPresent: manifest.implementsWillPresent ? manifest.willPresent : nil,
                implementsDidReceive: manifest.implementsDidReceive
            ) : nil
    }

    func application(_ application: UIApplication, didFinishLaunchingWithOptions launchOptions: [UIApplication.LaunchOptionsKey: Any]?) -> Bool {
        if let notificationDelegate { UNUserNotificationCenter.current().delegate = notificationDelegate }
        return true
    }

    func application(
        _ application: UIApplication,
        didReceiveRemoteNotification userInfo: [AnyHashable: Any],
        fetchCompletionHandler completionHandler: @escaping @Sendable (UIBackgroundFetchResult) -> Void
    ) {
        if let result = fetchCompletion.result { completionHandler(result) }
    }
}

/// The notification center delegate a manifest describes. A method the manifest says is not
/// implemented forwards to a delegate without it, whose protocol default tells the runtime so
/// (Herald's stand-in for an optional method that is absent).
final class ManifestNotificationDelegate: UNUserNotificationCenterDelegate, Sendable {
    private let willPresent: UNNotificationPresentationOptions?
    private let implementsDidReceive: Bool

    init(willPresent: UNNotificationPresentationOptions?, implementsDidReceive: Bool) {
        self.willPresent = willPresent
        self.implementsDidReceive = implementsDidReceive
    }

    func userNotificationCenter(
        _ center: UNUserNotificationCenter,
        willPresent notification: UNNotification,
        withCompletionHandler completionHandler: @escaping @Sendable (UNNotificationPresentationOptions) -> Void
    ) {
        guard let willPresent else {
            return EmptyNotificationDelegate().userNotificationCenter(center, willPresent: notification, withCompletionHandler: completionHandler)
        }
        completionHandler(willPresent)
    }

    func userNotificationCenter(
        _ center: UNUserNotificationCenter,
        didReceive response: UNNotificationResponse,
        withCompletionHandler completionHandler: @escaping @Sendable () -> Void
    ) {
        guard implementsDidReceive else {
            return EmptyNotificationDelegate().userNotificationCenter(center, didReceive: response, withCompletionHandler: completionHandler)
        }
        completionHandler()
    }
}

/// A delegate that implements none of the optional methods.
private final class EmptyNotificationDelegate: UNUserNotificationCenterDelegate {}
