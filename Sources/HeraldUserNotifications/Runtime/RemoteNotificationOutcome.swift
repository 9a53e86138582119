import Foundation

/// What the device did with one remote notification.
public struct RemoteNotificationOutcome: Sendable {
    /// The request identifier (the collapse id, the `apns-id`, or generated).
    public var identifier: String
    /// Whether `content-available` was present.
    public var isContentAvailable: Bool
    /// The app's state when the notification arrived.
    public var stateBefore: AppLifecycleState
    /// The app's state while the system handled it (for example `background` after a wake).
    public var stateWhileHandling: AppLifecycleState
    /// The app's state after the device finished handling it.
    public var stateAfter: AppLifecycleState
    /// The service extension's outcome.
    public var serviceExtension: ServiceExtensionOutcome
    /// How it was presented (`[]` when not shown).
    public var presentation: UNNotificationPresentationOptions
    /// The content that was shown, if shown.
    public var displayedContent: NotificationContentValue?
    /// The calls the system made into the app, in order.
    public var appCalls: [AppCall]
    /// The result the app passed to the fetch completion handler, if it was called.
    public var fetchResult: UIBackgroundFetchResult?
    /// Whether the fetch handler was not called within the budget.
    public var fetchExpired: Bool
    /// Whether the push was held by the background-push budget.
    public var held: Bool

    /// Whether the system showed an alert (banner or list).
    public var alertShown: Bool { presentation.showsBanner || presentation.showsInList }
}

/// What the device did when the user acted on a notification.
public struct InteractionOutcome: Sendable {
    /// The calls the system made into the app, in order.
    public var appCalls: [AppCall]
    /// The app's state afterwards.
    public var stateAfter: AppLifecycleState
    /// What the content extension answered, if it handled the action.
    public var contentExtensionOption: UNNotificationContentExtensionResponseOption?
    /// Whether the response reached the app (notification delegate or app delegate).
    public var deliveredToApp: Bool
}

/// Why the runtime refused a user interaction.
public struct InteractionError: Error, Sendable, Hashable {
    /// The reason.
    public let reason: String
}
