import Foundation

/// The object that handles foreground presentation and user responses (Apple's
/// `UNUserNotificationCenterDelegate`).
///
/// Every method is optional, as on Apple platforms: implement either the completion-handler
/// form or the `async` form. As Apple's, the protocol does not require `Sendable`, and the
/// completion handlers are `@Sendable`; a `@MainActor` app delegate conforms with `nonisolated`
/// methods or a `@preconcurrency` conformance, as with Apple's SDK in Swift 6.
///
/// Rules (spec §C.2): `willPresent` is called only while the app is in the foreground; if the
/// delegate implements neither form the notification is not presented (as with `[]`); if there
/// is no delegate at all the notification's own options are used. `didReceive` is called for
/// the default action, for custom actions, for text input, and for the dismiss action only when
/// the category has ``UNNotificationCategoryOptions/customDismissAction``.
public protocol UNUserNotificationCenterDelegate: AnyObject {
    /// A notification is about to be presented while the app is in the foreground; call the
    /// handler with how to present it.
    func userNotificationCenter(
        _ center: UNUserNotificationCenter,
        willPresent notification: UNNotification,
        withCompletionHandler completionHandler: @escaping @Sendable (UNNotificationPresentationOptions) -> Void
    )

    /// The `async` form of `willPresent`.
    func userNotificationCenter(
        _ center: UNUserNotificationCenter,
        willPresent notification: UNNotification
    ) async
        -> UNNotificationPresentationOptions

    /// The user responded to a notification; call the handler when done.
    func userNotificationCenter(
        _ center: UNUserNotificationCenter,
        didReceive response: UNNotificationResponse,
        withCompletionHandler completionHandler: @escaping @Sendable () -> Void
    )

    /// The `async` form of `didReceive`.
    func userNotificationCenter(_ center: UNUserNotificationCenter, didReceive response: UNNotificationResponse) async

    /// The user asked for the app's notification settings (`notification` is `nil` when opened
    /// from Settings).
    func userNotificationCenter(_ center: UNUserNotificationCenter, openSettingsFor notification: UNNotification?)
}

extension UNUserNotificationCenterDelegate {
    /// Default: not implemented.
    public func userNotificationCenter(
        _ center: UNUserNotificationCenter,
        willPresent notification: UNNotification,
        withCompletionHandler completionHandler: @escaping @Sendable (UNNotificationPresentationOptions) -> Void
    ) {
        ImplementationProbe.markDefault()
    }

    /// Default: not implemented (behaves as `[]`).
    public func userNotificationCenter(
        _ center: UNUserNotificationCenter,
        willPresent notification: UNNotification
    ) async
        -> UNNotificationPresentationOptions
    {
        ImplementationProbe.markDefault()
        return []
    }

    /// Default: not implemented.
    public func userNotificationCenter(
        _ center: UNUserNotificationCenter,
        didReceive response: UNNotificationResponse,
        withCompletionHandler completionHandler: @escaping @Sendable () -> Void
    ) {
        ImplementationProbe.markDefault()
    }

    /// Default: not implemented.
    public func userNotificationCenter(_ center: UNUserNotificationCenter, didReceive response: UNNotificationResponse) async {
        ImplementationProbe.markDefault()
    }

    /// Default: does nothing.
    public func userNotificationCenter(_ center: UNUserNotificationCenter, openSettingsFor notification: UNNotification?) {}
}
