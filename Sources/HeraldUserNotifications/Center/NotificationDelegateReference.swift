/// The app's notification delegate as the center keeps it: weakly, as Apple's center does, in a value the center's
/// lock and the runtime's tasks can hold.
///
/// Apple's `UNUserNotificationCenterDelegate` and `UIApplicationDelegate` do not require `Sendable`, and the system
/// calls them from a queue of its own. Herald does the same from the runtime's task: the reference itself is
/// immutable, and what the delegate does with its own state is the app's concern, as on iOS.
struct NotificationDelegateReference: @unchecked Sendable {
    weak var delegate: (any UNUserNotificationCenterDelegate)?

    init(_ delegate: (any UNUserNotificationCenterDelegate)?) {
        self.delegate = delegate
    }
}

/// An app object (a delegate) held strongly while the system keeps or calls it; see
/// ``NotificationDelegateReference`` for why it may cross tasks.
struct AppObject<Object>: @unchecked Sendable {
    let object: Object
}
