import HeraldCore

/// The body of `web-push-subscribe`: a web app on the device subscribed with the Push API, to be registered so that
/// its server can push to the endpoint (docs/device-link.md, "web-push-subscribe").
public struct DeviceLinkWebPushSubscriptionRequest: Sendable, Hashable {
    /// Chosen by the device and echoed in the reply.
    public var id: String?
    /// The web app's origin, `https://host[:port]` or `http://host[:port]`, as ``DeviceLinkClientMessage/webPushOrigin(_:)``
    /// writes it.
    public var origin: String
    /// The `applicationServerKey` the page subscribed with: its server's VAPID public key in base64url. The server
    /// checks that it is a P-256 public key.
    public var applicationServerKey: String
    /// The subscription id the device chose, the last part of the endpoint `/push/<token>`.
    public var token: DeviceToken

    /// Creates a subscription report.
    public init(id: String?, origin: String, applicationServerKey: String, token: DeviceToken) {
        self.id = id
        self.origin = origin
        self.applicationServerKey = applicationServerKey
        self.token = token
    }
}

/// The body of `web-push-subscribed`: the subscription is registered, and its endpoint is where the site's server
/// sends.
public struct DeviceLinkWebPushSubscription: Sendable, Hashable {
    /// The request's `id`.
    public var id: String?
    /// The subscription id.
    public var token: DeviceToken
    /// The push resource: `<push service origin>/push/<token>`, what `PushSubscription.endpoint` gives the page.
    public var endpoint: String
    /// Whether this request registered it (`false`: it already was).
    public var isNew: Bool
    /// Whether the device unsubscribes (`web-push-unsubscribe`) when its user removes the web app's permission, so that
    /// the endpoint then answers `410` (`herald serve --web-push-removed-permission unregistered`). `false` by default:
    /// Apple's push service is reported to go on answering `201` and the browser drops what comes (docs/web-push.md).
    public var unsubscribeOnPermissionRemoval: Bool

    /// Creates a reply.
    public init(id: String?, token: DeviceToken, endpoint: String, isNew: Bool, unsubscribeOnPermissionRemoval: Bool = false) {
        self.id = id
        self.token = token
        self.endpoint = endpoint
        self.isNew = isNew
        self.unsubscribeOnPermissionRemoval = unsubscribeOnPermissionRemoval
    }
}

/// The body of `web-push-unsubscribed`: the subscription ended; pushes to its endpoint get `410 Unregistered`.
public struct DeviceLinkWebPushUnsubscription: Sendable, Hashable {
    /// The request's `id`.
    public var id: String?
    /// The subscription id.
    public var token: DeviceToken
    /// When it ended, in milliseconds since the epoch.
    public var retiredAtMilliseconds: Int64

    /// Creates a reply.
    public init(id: String?, token: DeviceToken, retiredAtMilliseconds: Int64) {
        self.id = id
        self.token = token
        self.retiredAtMilliseconds = retiredAtMilliseconds
    }
}

extension DeviceLinkClientMessage {
    /// The longest web app origin, in bytes (the store keeps it where an app's bundle id goes, which has this limit).
    public static let maximumOriginLength = 255

    /// `text` as a web app's origin in its serialized form (RFC 6454 §6.2), or `nil` when it is not one: `https` or
    /// `http`, a host name, IPv4 address or bracketed IPv6 address, and a port, nothing else (no user, path, query or
    /// fragment, not even a trailing `/`); at most ``maximumOriginLength`` bytes.
    ///
    /// The scheme and host are lowercased and the scheme's default port is dropped, as a browser serializes an
    /// origin, so that one site is one origin (a second subscription of a site with the same key replaces the first).
    public static func webPushOrigin(_ text: String) -> String? {
        guard text.utf8.count <= maximumOriginLength else { return nil }
        let lowercased = text.lowercased()
        let scheme: String
        let defaultPort: Int
        if lowercased.hasPrefix("https://") {
            (scheme, defaultPort) = ("https", 443)
        } else if lowercased.hasPrefix("http://") {
            (scheme, defaultPort) = ("http", 80)
        } else {
            return nil
        }
        let authority = lowercased.dropFirst(scheme.count + 3)
        let host: Substring
        var portText: Substring?
        if authority.hasPrefix("[") {
            guard let close = authority.firstIndex(of: "]") else { return nil }
            host = authority[...close]
            let inside = host.utf8.dropFirst().dropLast()
            guard !inside.isEmpty, inside.allSatisfy({ isHexDigit($0) || $0 == UInt8(ascii: ":") || $0 == UInt8(ascii: ".") }) else { return nil }
            let rest = authority[authority.index(after: close)...]
            if !rest.isEmpty {
                guard rest.hasPrefix(":") else { return nil }
                portText = rest.dropFirst()
            }
        } else {
            if let colon = authority.firstIndex(of: ":") {
                host = authority[..<colon]
                portText = authority[authority.index(after: colon)...]
            } else {
                host = authority
            }
            guard !host.isEmpty, host.utf8.allSatisfy({ isHostByte($0) }) else { return nil }
        }
        var origin = scheme + "://" + host
        if let portText {
            guard (1...5).contains(portText.utf8.count), portText.utf8.allSatisfy({ $0 >= 0x30 && $0 <= 0x39 }),
                let port = Int(portText), (1...65_535).contains(port)
            else { return nil }
            if port != defaultPort { origin += ":\(port)" }
        }
        return origin
    }

    private static func isHexDigit(_ byte: UInt8) -> Bool {
        (byte >= 0x30 && byte <= 0x39) || (byte >= 0x61 && byte <= 0x66)
    }

    /// A lowercase letter, a digit, `.` or `-`: what a host name or an IPv4 address is written with.
    private static func isHostByte(_ byte: UInt8) -> Bool {
        (byte >= 0x30 && byte <= 0x39) || (byte >= 0x61 && byte <= 0x7A) || byte == UInt8(ascii: ".") || byte == UInt8(ascii: "-")
    }

    static func webPushSubscription(
        _ reader: JSONObjectReader,
        _ context: DeviceLinkError
    ) throws(DeviceLinkError)
        -> DeviceLinkWebPushSubscriptionRequest
    {
        let id = try reader.optionalString("id", context: context)
        guard let origin = webPushOrigin(try reader.string("origin", context: context)) else {
            throw context.with(
                code: .invalidOrigin,
                message:
                    "\"origin\" must be https://host[:port] or http://host[:port] (no user, path, query or fragment), at most \(maximumOriginLength) bytes"
            )
        }
        return DeviceLinkWebPushSubscriptionRequest(
            id: id,
            origin: origin,
            applicationServerKey: try reader.string("applicationServerKey", context: context),
            token: try activityTokenValue(reader, context)
        )
    }
}
