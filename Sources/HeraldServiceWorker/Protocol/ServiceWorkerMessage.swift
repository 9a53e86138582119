import HeraldCore

/// One line the scope writes: an action of the worker during an event, or the event's end.
///
/// Every line is a JSON object with a `type`; all but a few protocol errors carry the `event` they belong to.
public struct ServiceWorkerMessage: Sendable, Hashable {
    /// The event's number, as the host sent it (`0` is the script's load); `nil` when the line names none.
    public var event: Int64?
    /// What the line says.
    public var content: Content

    /// What a line from the scope says.
    public enum Content: Sendable, Hashable {
        /// `registration.showNotification` showed a notification.
        case show(WebNotification)
        /// `Notification.close()` closed the notification with this id.
        case close(id: String)
        /// `clients.openWindow` (or a client's `navigate`) opened this absolute URL.
        case openWindow(url: String)
        /// `navigator.setAppBadge` or `clearAppBadge`.
        case badge(AppBadgeChange)
        /// A `console.*` call.
        case console(ServiceWorkerConsoleLine)
        /// The worker failed (its script or the scope's rules).
        case error(ServiceWorkerError)
        /// The event ended: `listeners` listeners ran, for `milliseconds` of the worker's own time.
        case done(listeners: Int, milliseconds: Double)
    }

    /// A message from its parts.
    public init(event: Int64?, content: Content) {
        self.event = event
        self.content = content
    }

    /// Reads one line as the scope writes it; the error says in one line what is wrong with it.
    public static func read(_ line: [UInt8]) throws(ServiceWorkerProtocolError) -> ServiceWorkerMessage {
        do {
            return try parse(line)
        } catch {
            throw ServiceWorkerProtocolError(message: error.message)
        }
    }

    private static func parse(_ line: [UInt8]) throws(ServiceWorkerLineError) -> ServiceWorkerMessage {
        let context = ServiceWorkerLineError(message: "")
        let reader = try ServiceWorkerLineError.object(line, what: "the line")
        let event = try reader.optionalInteger("event", context: context)
        let type = try reader.string("type", context: context)
        let content: Content
        switch type {
        case "show":
            content = .show(try WebNotification(reading: try reader.rawObject("notification", context: context)))
        case "close":
            content = .close(id: try reader.string("id", context: context))
        case "open-window":
            content = .openWindow(url: try reader.string("url", context: context))
        case "badge":
            if try reader.optionalBool("clear", context: context) == true {
                content = .badge(.cleared)
            } else if let count = try reader.optionalInteger("count", context: context), count > 0 {
                content = .badge(.count(Int(count)))
            } else if try reader.optionalBool("flag", context: context) == true {
                content = .badge(.flag)
            } else {
                throw context.with(message: "a badge line needs clear, flag or a count above 0")
            }
        case "console":
            let level = try reader.string("level", context: context)
            content = .console(ServiceWorkerConsoleLine(level: level, text: try reader.string("text", context: context)))
        case "error":
            let kind = ServiceWorkerError.Kind(rawValue: try reader.string("kind", context: context))
            content = .error(ServiceWorkerError(kind, try reader.string("message", context: context)))
        case "done":
            let listeners = try reader.optionalInteger("handled", context: context) ?? 0
            let milliseconds = reader.object["milliseconds"]?.doubleValue ?? 0
            content = .done(listeners: Int(clamping: listeners), milliseconds: milliseconds)
        default:
            throw context.with(message: "unknown line type \"\(type)\"")
        }
        return ServiceWorkerMessage(event: event, content: content)
    }
}

/// A line from the scope that is not one the protocol knows, with what is wrong in one line.
public struct ServiceWorkerProtocolError: Error, Sendable, Hashable, CustomStringConvertible {
    /// What is wrong with the line.
    public let message: String

    public var description: String { message }
}

/// A change to the web app's badge: `navigator.setAppBadge(n)`, `setAppBadge()` or `clearAppBadge()`.
public enum AppBadgeChange: Sendable, Hashable {
    /// The badge shows a number (`setAppBadge(n)` with n > 0).
    case count(Int)
    /// The badge shows a mark without a number (`setAppBadge()`).
    case flag
    /// The badge is removed (`clearAppBadge()` or `setAppBadge(0)`).
    case cleared
}

/// A `console.*` call of the worker: its level (`log`, `info`, `warn`, `error`, `debug`, `trace`) and its text, formatted
/// as Node formats it.
public struct ServiceWorkerConsoleLine: Sendable, Hashable {
    /// The console method called.
    public var level: String
    /// The formatted text.
    public var text: String

    /// A console line from its parts.
    public init(level: String, text: String) {
        self.level = level
        self.text = text
    }
}
