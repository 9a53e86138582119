import Foundation

/// A request to show a notification: identifier, content and trigger (Apple's
/// `UNNotificationRequest`).
///
/// The identifier decides replacement (spec §C.4): adding a request whose identifier matches a
/// pending request replaces it; delivering one whose identifier matches a delivered notification
/// alerts again and replaces it at the top. For remote notifications the identifier is the
/// `apns-collapse-id`, or a generated one.
public final class UNNotificationRequest: NSObject, Sendable {
    /// The identifier.
    public let identifier: String
    /// The content (an immutable copy of what was passed in).
    public let content: UNNotificationContent
    /// The trigger; `nil` means "deliver right away". Remote notifications carry a
    /// ``UNPushNotificationTrigger``.
    public let trigger: UNNotificationTrigger?

    /// Creates a request. The content is copied.
    public init(identifier: String, content: UNNotificationContent, trigger: UNNotificationTrigger?) {
        self.identifier = identifier
        self.content = UNNotificationContent(value: content.value)
        self.trigger = trigger
        super.init()
    }

    /// Requests are equal when identifier, content and trigger are equal.
    public override func isEqual(_ object: Any?) -> Bool {
        guard let other = object as? UNNotificationRequest else { return false }
        return other.identifier == identifier && other.content.value == content.value && other.trigger == trigger
    }

    /// A hash of the identifier.
    public override var hash: Int { identifier.hashValue }

    /// A short description for logs.
    public override var description: String { "<UNNotificationRequest identifier=\"\(identifier)\" content=\(content)>" }
}

/// A delivered notification: the request and the date it was delivered (Apple's
/// `UNNotification`).
public final class UNNotification: NSObject, Sendable {
    /// The delivery date (on the runtime's clock).
    public let date: Date
    /// The request that was delivered.
    public let request: UNNotificationRequest

    /// Creates a delivered notification. Apple's is created by the system only; Herald's
    /// initializer is public so tests can build responses.
    public init(request: UNNotificationRequest, date: Date) {
        self.request = request
        self.date = date
        super.init()
    }

    /// Notifications are equal when request and date are equal.
    public override func isEqual(_ object: Any?) -> Bool {
        guard let other = object as? UNNotification else { return false }
        return other.date == date && other.request == request
    }

    /// A hash of the identifier.
    public override var hash: Int { request.identifier.hashValue }
}

/// The identifier of the response when the user opened the app from the notification.
public let UNNotificationDefaultActionIdentifier = "com.apple.UNNotificationDefaultActionIdentifier"

/// The identifier of the response when the user explicitly dismissed the notification; sent
/// only for categories with ``UNNotificationCategoryOptions/customDismissAction``.
public let UNNotificationDismissActionIdentifier = "com.apple.UNNotificationDismissActionIdentifier"

/// The user's response to a notification (Apple's `UNNotificationResponse`).
public class UNNotificationResponse: NSObject, @unchecked Sendable {
    // Immutable (only `let`s) and not `open`: the only subclass is UNTextInputNotificationResponse.

    /// The notification the user responded to.
    public let notification: UNNotification
    /// ``UNNotificationDefaultActionIdentifier``, ``UNNotificationDismissActionIdentifier`` or an
    /// app action identifier.
    public let actionIdentifier: String

    /// Creates a response (system-created on Apple platforms).
    public init(notification: UNNotification, actionIdentifier: String) {
        self.notification = notification
        self.actionIdentifier = actionIdentifier
        super.init()
    }
}

/// The response to a ``UNTextInputNotificationAction``, with the text the user typed.
public final class UNTextInputNotificationResponse: UNNotificationResponse, @unchecked Sendable {
    /// The text the user entered.
    public let userText: String

    /// Creates a text response.
    public init(notification: UNNotification, actionIdentifier: String, userText: String) {
        self.userText = userText
        super.init(notification: notification, actionIdentifier: actionIdentifier)
    }
}
