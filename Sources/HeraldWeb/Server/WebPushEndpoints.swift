import HeraldCore

/// Where the endpoints of web push subscriptions made over the device link point: Herald's push service, the provider
/// port (docs/device-link.md, "web-push-subscribe").
///
/// An endpoint is `<push service origin>/push/<subscription id>`. The origin is ``origin`` when set; otherwise the
/// provider port's scheme and number (``providerPort``) with the host name the device used to reach the device link,
/// as a browser's endpoint names a host its device can reach.
public struct WebPushEndpoints: Sendable {
    /// The provider port a push service listens on.
    public struct ProviderPort: Sendable, Hashable {
        /// `https` for the TLS port, `http` for the cleartext one.
        public var scheme: String
        /// The port number.
        public var port: Int

        /// Creates a port.
        public init(scheme: String, port: Int) {
            self.scheme = scheme
            self.port = port
        }
    }

    /// The whole push service origin (`https://push.example.com:2197`, as `DeviceLinkClientMessage.webPushOrigin(_:)`
    /// writes it), used as is instead of the device's host and ``providerPort`` (`herald serve --web-push-origin`): for
    /// a push service behind a proxy or with a name of its own.
    public var origin: String?
    /// The provider port, asked at each subscription rather than once: a port 0 becomes a real one only once the gateway
    /// listens. `nil` while no provider port listens; a subscription then gets `internal` and may be retried.
    ///
    /// The default is `herald serve`'s default TLS port, 2197; `HeraldServer` asks its gateway.
    public var providerPort: @Sendable () async -> ProviderPort? = { ProviderPort(scheme: "https", port: 2197) }

    /// Whether devices unsubscribe when their user removes a web app's permission, so that its endpoint answers `410`
    /// (`herald serve --web-push-removed-permission unregistered`); told to each device in `web-push-subscribed`. Default
    /// `false`: the push service goes on answering `201`, as Apple's is reported to, and the browser drops what comes.
    public var unsubscribeOnPermissionRemoval = false

    /// The default: the provider port 2197 over TLS, no origin of its own.
    public init() {}

    /// The endpoint of subscription `token` for a device that reached the link at `linkHost` (127.0.0.1 when
    /// unknown), or `nil` when no provider port listens.
    public func endpoint(for token: DeviceToken, linkHost: String?) async -> String? {
        if let origin { return origin + "/push/" + token.hex }
        guard let port = await providerPort() else { return nil }
        return "\(port.scheme)://\(linkHost ?? "127.0.0.1"):\(port.port)/push/\(token.hex)"
    }

    /// The host of a `Host` header without its port, lowercased; `nil` when there is none or it is not a host name, an
    /// IPv4 address or a bracketed IPv6 address (it goes into an endpoint a site's server will send to: nothing else may
    /// slip in).
    public static func linkHost(fromHostHeader header: String?) -> String? {
        guard let header, (1...255).contains(header.utf8.count) else { return nil }
        let text = header.lowercased()
        let host: Substring
        if text.hasPrefix("[") {
            guard let close = text.firstIndex(of: "]") else { return nil }
            host = text[...close]
            let inside = host.utf8.dropFirst().dropLast()
            guard !inside.isEmpty, inside.allSatisfy({ isHexDigit($0) || $0 == UInt8(ascii: ":") || $0 == UInt8(ascii: ".") }) else { return nil }
        } else {
            host = text.firstIndex(of: ":").map { text[..<$0] } ?? text[...]
            guard !host.isEmpty, host.utf8.allSatisfy({ isHexDigit($0) || isHostByte($0) }) else { return nil }
        }
        return String(host)
    }

    private static func isHexDigit(_ byte: UInt8) -> Bool {
        (byte >= 0x30 && byte <= 0x39) || (byte >= 0x61 && byte <= 0x66)
    }

    private static func isHostByte(_ byte: UInt8) -> Bool {
        (byte >= 0x61 && byte <= 0x7A) || byte == UInt8(ascii: ".") || byte == UInt8(ascii: "-")
    }
}
