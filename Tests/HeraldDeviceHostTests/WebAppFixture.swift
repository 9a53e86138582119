import Foundation
import HeraldCore
import HeraldDeviceHost
import HeraldDeviceLink
import HeraldWebPush

/// A site's side of a web push test: its VAPID key, and messages encrypted for a web app as its server sends them.
struct WebAppFixture {
    /// `Examples/WebPush`.
    static let examples = URL(fileURLWithPath: #filePath).deletingLastPathComponent().appendingPathComponent("../../Examples/WebPush")
        .standardizedFileURL

    /// The site's VAPID signer: its public key is the web app's `applicationServerKey`.
    let vapid: VAPIDSigner

    /// A site with a new VAPID key.
    init() throws {
        var generator = SystemRandomNumberGenerator()
        vapid = try VAPIDSigner(
            rawRepresentation: (0..<32).map { _ in UInt8.random(in: 1...254, using: &generator) },
            subject: "mailto:ops@shop.example"
        )
    }

    /// A web app of `https://shop.example` subscribed with the site's key, with `Examples/WebPush/<example>` as its
    /// service worker (none when `nil`).
    func webApp(example: String? = nil, kind: WebApp.Kind = .safari) throws -> WebApp {
        let configuration = WebApp.Configuration(
            origin: "https://shop.example",
            applicationServerKey: vapid.publicKey.base64URL,
            kind: kind,
            serviceWorkerPath: example.map { Self.examples.appendingPathComponent($0).path }
        )
        return try WebApp(configuration: configuration)
    }

    /// `plaintext` encrypted for `app` (RFC 8291) as the push service stores it and the device link delivers it.
    func message(_ plaintext: String, to app: WebApp) throws -> DeviceLinkNotification {
        let body = try WebPushEncryption.encrypt(Array(plaintext.utf8), p256dh: app.keys.p256dh, auth: app.keys.auth)
        return Self.notification(
            WebPushStoredMessage(encoding: .aes128gcm, body: body, urgency: .normal, ttl: WebPushTTL(seconds: 3600)).payload,
            to: app
        )
    }

    /// A `notification` frame for `app`'s subscription with `payload`.
    static func notification(_ payload: [UInt8], to app: WebApp) -> DeviceLinkNotification {
        DeviceLinkNotification(
            apnsID: .random(),
            token: app.subscriptionID,
            bundleID: app.origin,
            topic: app.origin,
            pushType: PushType(rawValue: "web-push"),
            priority: .immediate,
            expiration: nil,
            collapseID: nil,
            acceptedAtMilliseconds: Int64(Date().timeIntervalSince1970 * 1000),
            attempt: 1,
            payload: payload
        )
    }
}
