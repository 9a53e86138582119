import HeraldCore
import HeraldServiceWorker

/// A notification a web app shows: from a declarative message, or shown by its service worker.
public struct WebAppNotification: Sendable, Hashable {
    /// Where it came from, which decides what a tap does.
    public enum Source: String, Sendable, Hashable {
        /// A declarative message: a tap opens ``WebAppNotification/navigate``.
        case declarative
        /// The service worker's `showNotification`: a tap runs its `notificationclick`.
        case serviceWorker = "service-worker"
    }

    /// The device's identifier for it: what ``WebApp/tap(_:)`` takes.
    public var id: String
    /// The title.
    public var title: String
    /// The body text; empty when none.
    public var body: String
    /// The tag; empty when none. A notification with the same tag replaces this one.
    public var tag: String
    /// The URL a tap opens (declarative messages only).
    public var navigate: String?
    /// Where it came from.
    public var source: Source
    /// The push message that showed it.
    public var apnsID: NotificationID?
    /// The service worker's own form of it, for its `notificationclick` (service worker notifications only).
    public var workerNotification: WebNotification?

    /// A notification a declarative message describes.
    init(_ message: DeclarativePushMessage, id: String, apnsID: NotificationID?) {
        self.id = id
        title = message.title
        body = message.body
        tag = message.tag
        navigate = message.navigate
        source = .declarative
        self.apnsID = apnsID
    }

    /// A notification the service worker showed; the worker's id is kept.
    init(_ notification: WebNotification, apnsID: NotificationID?) {
        id = notification.id
        title = notification.title
        body = notification.options.body
        tag = notification.options.tag
        source = .serviceWorker
        self.apnsID = apnsID
        workerNotification = notification
    }

    /// What a `shown` report says of it (the report names the message and, as its `identifier`, the notification).
    var detail: [String: JSONValue] {
        var detail: [String: JSONValue] = ["title": .string(title), "body": .string(body), "tag": .string(tag), "source": .string(source.rawValue)]
        if let navigate { detail["navigate"] = .string(navigate) }
        return detail
    }

    /// What the screen says of it: the report's detail, its id and its message.
    var screen: JSONValue {
        var object = detail
        object["id"] = .string(id)
        if let apnsID { object["apnsID"] = .string(apnsID.text) }
        return .object(object)
    }
}
