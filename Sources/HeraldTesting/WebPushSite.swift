import HeraldDeviceHost
import HeraldWebPush

/// A site's server in a web push test: its origin and its VAPID key and contact (RFC 8292). Its public key is the
/// `applicationServerKey` its web apps subscribe with; ``HeraldTestServer/sendWebPush(_:to:from:ttl:urgency:topic:endpoint:)``
/// signs with its private key.
///
/// ```swift
/// let site = WebPushSite(origin: "https://shop.example")
/// let web = try await server.addWebApp(origin: site.origin, applicationServerKey: site.applicationServerKey)
/// try await server.sendWebPush(#"{"title":"Order shipped"}"#, to: web, from: site)
/// ```
public struct WebPushSite: Sendable {
    /// The site's origin, `https://host[:port]`.
    public var origin: String
    /// The VAPID signer: the site's private key, and the `sub` it signs.
    public var vapid: VAPIDSigner

    /// A site with a new P-256 key.
    ///
    /// - Parameter subject: the VAPID `sub`: a `mailto:` address or an `https:` URL (Apple refuses anything else,
    ///   and a `mailto:` at `localhost`, with `403 BadJwtToken`: give such a subject to test that refusal).
    public init(origin: String = "https://shop.example", subject: String = "mailto:ops@shop.example") {
        // Each octet in 1...254 keeps the scalar between 1 and the group order (which begins 0xFF), so every draw is a
        // valid P-256 private key.
        var generator = SystemRandomNumberGenerator()
        let scalar = (0..<32).map { _ in UInt8.random(in: 1...254, using: &generator) }
        guard let vapid = try? VAPIDSigner(rawRepresentation: scalar, subject: subject) else {
            preconditionFailure("a scalar below the P-256 group order is a private key")
        }
        self.init(origin: origin, vapid: vapid)
    }

    /// A site with a key of its own, as a site's server loads it (`VAPIDSigner(pemRepresentation:subject:)`).
    public init(origin: String, vapid: VAPIDSigner) {
        self.origin = origin
        self.vapid = vapid
    }

    /// The public key, base64url: the `applicationServerKey` a page subscribes with, and `k=` in VAPID.
    public var applicationServerKey: String { vapid.publicKey.base64URL }

    /// The VAPID `sub` the site signs.
    public var subject: String { vapid.subject }

    /// The same site signing another `sub` (to test Apple's rules for it).
    public func signing(subject: String) -> WebPushSite {
        WebPushSite(origin: origin, vapid: VAPIDSigner(privateKey: vapid.privateKey, subject: subject))
    }

    /// A web app of this site, subscribing with its key, for ``HeraldTestServer/addDevice(named:apps:webApps:timeout:)``.
    ///
    /// - Parameter serviceWorker: the path of the site's `sw.js`, run under Node; `nil` for declarative messages only.
    public func webApp(kind: WebApp.Kind = .safari, serviceWorker: String? = nil) -> WebApp.Configuration {
        WebApp.Configuration(origin: origin, applicationServerKey: applicationServerKey, kind: kind, serviceWorkerPath: serviceWorker)
    }
}
