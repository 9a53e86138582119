import Foundation
import HeraldCore

/// A declarative web push message (Safari 18.4+): a push whose plaintext is JSON that describes the notification
/// itself, so the device shows it without running the site's JavaScript.
///
/// ```json
/// {"web_push":8030,"notification":{"title":"Order shipped","navigate":"https://shop.example/orders/42"},"app_badge":3}
/// ```
///
/// The rules are WebKit's (Source/WebCore/Modules/notifications/NotificationJSONParser.cpp): `web_push` is the number
/// 8030; `notification` an object with a non-empty `title` and an absolute `navigate` URL; `body`, `tag`, `lang`
/// strings; `dir` one of `auto`, `ltr`, `rtl`; `icon` a URL; `silent` and `mutable` booleans; `data` any value;
/// `app_badge` a whole number ≥ 0 or a string of digits. WebKit reads `app_badge` and `mutable` inside
/// `notification`, the W3C Push API at the top level: Herald takes either *(chosen)*, the top level first.
public struct DeclarativePushMessage: Sendable, Hashable {
    /// The value of `web_push` that marks a declarative message: the RFC's number.
    public static let marker = 8030

    /// The notification's title.
    public var title: String
    /// The URL a tap opens, absolute.
    public var navigate: String
    /// The body text; empty when none.
    public var body = ""
    /// The tag: a shown notification with the same tag is replaced; empty when none.
    public var tag = ""
    /// The language tag; empty when none.
    public var lang = ""
    /// `auto`, `ltr` or `rtl`.
    public var dir = "auto"
    /// The icon's URL.
    public var icon: String?
    /// `silent`: `nil` when the message leaves it to the system.
    public var silent: Bool?
    /// `data`, as sent.
    public var data: JSONValue = .null
    /// The app badge to set (0 clears it); `nil` leaves it as it is.
    public var appBadge: Int?
    /// Whether the service worker may change the notification first (its `push` event runs).
    public var isMutable = false

    /// A message with a title and its URL.
    public init(title: String, navigate: String) {
        self.title = title
        self.navigate = navigate
    }

    /// What a push's plaintext is.
    public enum Parsed: Sendable, Hashable {
        /// Not a declarative message (not JSON, or no `"web_push": 8030`): the service worker handles it.
        case notDeclarative
        /// A declarative message.
        case declarative(DeclarativePushMessage)
        /// Marked as declarative, but a member breaks a rule (said in one line): WebKit then treats it as an
        /// ordinary push, for the service worker.
        case invalid(String)
    }

    /// Reads a push's plaintext.
    public static func parse(_ plaintext: [UInt8]) -> Parsed {
        guard let root = (try? JSONParser.parse(plaintext))?.objectValue,
            let marker = root["web_push"]?.integerValue, marker == Self.marker
        else { return .notDeclarative }
        do throws(RuleError) {
            return .declarative(try DeclarativePushMessage(root: root))
        } catch {
            return .invalid(error.message)
        }
    }

    private struct RuleError: Error {
        var message: String
    }

    private init(root: JSONObject) throws(RuleError) {
        guard let notification = root["notification"]?.objectValue else {
            throw RuleError(message: "a declarative message needs a \"notification\" object")
        }
        guard let title = notification["title"]?.stringValue, !title.isEmpty else {
            throw RuleError(message: "the notification's \"title\" is missing, empty or not a string")
        }
        guard let navigate = notification["navigate"]?.stringValue, Self.isAbsoluteURL(navigate) else {
            throw RuleError(message: "the notification's \"navigate\" is missing or not an absolute URL")
        }
        self.init(title: title, navigate: navigate)
        body = try Self.string("body", in: notification) ?? ""
        tag = try Self.string("tag", in: notification) ?? ""
        lang = try Self.string("lang", in: notification) ?? ""
        dir = try Self.string("dir", in: notification) ?? "auto"
        guard ["auto", "ltr", "rtl"].contains(dir) else { throw RuleError(message: "\"dir\" is \"\(dir)\", not auto, ltr or rtl") }
        icon = try Self.string("icon", in: notification)
        if let icon, !Self.isAbsoluteURL(icon) { throw RuleError(message: "\"icon\" is not an absolute URL") }
        silent = try Self.bool("silent", in: notification)
        data = notification["data"] ?? .null
        // The top level first (the W3C Push API), then the notification (WebKit).
        let topMutable = try Self.bool("mutable", in: root)
        let innerMutable = try Self.bool("mutable", in: notification)
        isMutable = topMutable ?? innerMutable ?? false
        let topBadge = try Self.badge(in: root)
        let innerBadge = try Self.badge(in: notification)
        appBadge = topBadge ?? innerBadge
    }

    private static func string(_ key: String, in object: JSONObject) throws(RuleError) -> String? {
        guard let value = object[key] else { return nil }
        guard let text = value.stringValue else { throw RuleError(message: "\"\(key)\" is not a string") }
        return text
    }

    private static func bool(_ key: String, in object: JSONObject) throws(RuleError) -> Bool? {
        guard let value = object[key] else { return nil }
        guard let flag = value.boolValue else { throw RuleError(message: "\"\(key)\" is not a boolean") }
        return flag
    }

    private static func badge(in object: JSONObject) throws(RuleError) -> Int? {
        guard let value = object["app_badge"] else { return nil }
        if let number = value.integerValue, number >= 0 { return number }
        if let text = value.stringValue, !text.isEmpty, text.utf8.allSatisfy({ (0x30...0x39).contains($0) }), let number = Int(text) {
            return number
        }
        throw RuleError(message: "\"app_badge\" is not a whole number of 0 or more (or a string of digits)")
    }

    private static func isAbsoluteURL(_ text: String) -> Bool {
        guard let url = URL(string: text), let scheme = url.scheme, !scheme.isEmpty else { return false }
        return url.host != nil || scheme != "http" && scheme != "https"
    }
}
