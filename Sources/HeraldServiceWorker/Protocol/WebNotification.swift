import HeraldCore

/// A notification a service worker showed with `registration.showNotification(title, options)`, as values.
///
/// The scope applies the Notifications API's option processing before it reports one: defaults filled in, `icon`,
/// `badge`, `image` made absolute against the script's URL, `data` as its JSON form (a value JSON cannot hold is
/// `null` here; the worker itself still sees the original).
public struct WebNotification: Sendable, Hashable {
    /// The scope's identifier for this notification: what `notificationclick` and `close()` refer to.
    public var id: String
    /// The title.
    public var title: String
    /// The options, after the standard's processing.
    public var options: Options

    /// A notification from its parts.
    public init(id: String, title: String, options: Options = Options()) {
        self.id = id
        self.title = title
        self.options = options
    }

    /// `NotificationOptions` as the scope reports them.
    public struct Options: Sendable, Hashable {
        /// The body text; empty when none.
        public var body = ""
        /// The tag; a notification with the same non-empty tag replaces this one.
        public var tag = ""
        /// The icon's absolute URL.
        public var icon: String?
        /// The badge's absolute URL.
        public var badge: String?
        /// The image's absolute URL.
        public var image: String?
        /// `data`, as JSON.
        public var data: JSONValue = .null
        /// The action buttons, at most `Notification.maxActions`.
        public var actions: [Action] = []
        /// `silent`: `nil` when the worker left it to the system.
        public var silent: Bool?
        /// `requireInteraction`.
        public var requireInteraction = false
        /// `renotify` (only with a tag).
        public var renotify = false
        /// `timestamp`, in milliseconds since 1970 (the time shown when the worker gave none).
        public var timestamp: Int64 = 0
        /// `lang`; empty when none.
        public var lang = ""
        /// `dir`: `auto`, `ltr` or `rtl`.
        public var dir = "auto"

        /// Options with the standard's defaults.
        public init() {}
    }

    /// One of `actions`: a button on the notification.
    public struct Action: Sendable, Hashable {
        /// The action's identifier, passed to `notificationclick` as `event.action`.
        public var action: String
        /// The button's title.
        public var title: String
        /// The button's icon, an absolute URL.
        public var icon: String?

        /// An action from its parts.
        public init(action: String, title: String, icon: String? = nil) {
            self.action = action
            self.title = title
            self.icon = icon
        }
    }
}

extension WebNotification {
    /// Reads a notification as the scope writes it: `{"id":…,"title":…,"options":{…}}`.
    init(reading bytes: [UInt8]) throws(ServiceWorkerLineError) {
        let context = ServiceWorkerLineError(message: "")
        let reader = try ServiceWorkerLineError.object(bytes, what: "the notification")
        id = try reader.string("id", context: context)
        title = try reader.string("title", context: context)
        options = Options()
        guard let optionBytes = try reader.optionalRawObject("options", context: context) else { return }
        let members = try ServiceWorkerLineError.object(optionBytes, what: "the notification's options")
        options.body = try members.optionalString("body", context: context) ?? ""
        options.tag = try members.optionalString("tag", context: context) ?? ""
        options.icon = try members.optionalString("icon", context: context)
        options.badge = try members.optionalString("badge", context: context)
        options.image = try members.optionalString("image", context: context)
        options.data = members.object["data"] ?? .null
        options.silent = try members.optionalBool("silent", context: context)
        options.requireInteraction = try members.optionalBool("requireInteraction", context: context) ?? false
        options.renotify = try members.optionalBool("renotify", context: context) ?? false
        options.timestamp = try members.optionalInteger("timestamp", context: context) ?? 0
        options.lang = try members.optionalString("lang", context: context) ?? ""
        options.dir = try members.optionalString("dir", context: context) ?? "auto"
        switch members.object["actions"] {
        case nil, .null?: break
        case .array(let entries)?:
            options.actions = try entries.map { entry throws(ServiceWorkerLineError) in
                guard let object = entry.objectValue, let action = object["action"]?.stringValue, let title = object["title"]?.stringValue
                else { throw context.with(message: "\"actions\" must hold objects with an action and a title") }
                return Action(action: action, title: title, icon: object["icon"]?.stringValue)
            }
        default: throw context.with(message: "\"actions\" must be an array")
        }
    }

    /// The notification as the scope reads it.
    var jsonBytes: [UInt8] {
        var writer = JSONTextWriter()
        write(to: &writer)
        return writer.bytes
    }

    /// Writes the notification as the scope reads it (the same form it reports).
    func write(to writer: inout JSONTextWriter) {
        writer.beginObject()
        writer.member("id", id)
        writer.member("title", title)
        writer.key("options")
        writer.beginObject()
        writer.member("body", options.body)
        writer.member("tag", options.tag)
        if let icon = options.icon { writer.member("icon", icon) }
        if let badge = options.badge { writer.member("badge", badge) }
        if let image = options.image { writer.member("image", image) }
        writer.member("data", options.data)
        writer.key("actions")
        writer.beginArray()
        for action in options.actions {
            writer.beginObject()
            writer.member("action", action.action)
            writer.member("title", action.title)
            if let icon = action.icon { writer.member("icon", icon) }
            writer.endObject()
        }
        writer.endArray()
        if let silent = options.silent { writer.member("silent", silent) }
        writer.member("requireInteraction", options.requireInteraction)
        writer.member("renotify", options.renotify)
        writer.member("timestamp", options.timestamp)
        writer.member("lang", options.lang)
        writer.member("dir", options.dir)
        writer.endObject()
        writer.endObject()
    }
}
