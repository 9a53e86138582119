import HeraldCore
import HeraldDeviceHost
import HeraldServiceWorker
import HeraldSimulator
import HeraldWebPush

/// A web app on a simulated device connected to the test server — a site in Safari on a Mac or a Home Screen web app
/// on an iPhone — subscribed to push, made by ``HeraldTestServer/addWebApp(origin:applicationServerKey:kind:serviceWorker:timeout:)``
/// or ``HeraldTestServer/addDevice(named:apps:webApps:timeout:)`` (docs/web-push.md, "The browser side").
///
/// What a page's script would hand its server is here (``subscriptionJSON``, ``endpoint``, ``keys``); what the web app
/// shows (``notifications``, ``badge``) and reports (`decrypted`, `shown`, `not-shown`) is read and awaited with
/// the kit's expectations.
public final class TestWebApp: Sendable {
    /// The web app itself, for anything the kit does not wrap.
    public let app: WebApp
    /// The endpoint the push service gave the subscription: where a site's server posts (`toJSON().endpoint`).
    public let endpoint: String
    /// The device holding the web app; a tap's report goes to the server through it.
    public let linked: LinkedDevice

    let log: DeviceReportLog

    init(app: WebApp, endpoint: String, linked: LinkedDevice, log: DeviceReportLog) {
        self.app = app
        self.endpoint = endpoint
        self.linked = linked
        self.log = log
    }

    /// The site's origin, serialized as a browser does (`https://shop.example`): the web app's reports and messages
    /// carry it as their bundle id and topic.
    public var origin: String { app.origin }

    /// The name of the device holding the web app.
    public var deviceName: String { linked.device.name }

    /// The subscription's keys (RFC 8291): `keys.p256dh` and `keys.auth` are what a site encrypts for.
    public var keys: WebPushSubscriptionKeys { app.keys }

    /// The subscription's id (hex): the endpoint's last path segment, and the token the server's trace, inspection API
    /// and fault rules (`match.token`) know it by.
    public var subscriptionID: String { app.subscriptionID.hex }

    /// The subscription as the Push API's `PushSubscription.toJSON()` gives it to the page, one line — what a page
    /// sends its server, and what `herald send --web-push` and pywebpush take:
    /// `{"endpoint":…,"expirationTime":null,"keys":{"p256dh":…,"auth":…}}`.
    public var subscriptionJSON: String { WebApp.subscriptionJSON(endpoint: endpoint, keys: app.keys) }

    /// Where the subscription stands: subscribed, or revoked by the device (too many pushes showed nothing).
    public var subscription: WebApp.SubscriptionState {
        get async { await app.subscription }
    }

    /// The notifications the web app shows now, oldest first.
    public var notifications: [WebAppNotification] {
        get async { await app.notifications }
    }

    /// The app badge (`nil`: none set).
    public var badge: AppBadgeChange? {
        get async { await app.badge }
    }

    /// The pushes that showed nothing so far, counted against the subscription (``WebApp/maximumSilentPushes``).
    public var silentPushes: Int {
        get async { await app.silentPushes }
    }

    /// Every report about the web app so far — `decrypted`, `shown`, `not-shown`, and `action` for a tap — oldest
    /// first. Those that name a message were also sent on the link, into its trace.
    public var reports: [DeviceReport] { log.all.filter { $0.bundleID == origin } }

    /// The reports about one message (by the `apns-id` its `201` carried), oldest first.
    public func reports(for apnsID: String) -> [DeviceReport] {
        guard let id = NotificationID(apnsID) else { return [] }
        return reports.filter { $0.apnsID == id }
    }

    /// `web app https://shop.example on 'Test Mac'`: how failures name it.
    var named: String { "web app \(origin) on '\(deviceName)'" }

    /// What the web app shows, for a failure message: ` (it shows "A", "B")` or ` (it shows none)`.
    func listing() async -> String {
        let shown = await notifications.map { "\"\($0.title)\"" }
        return shown.isEmpty ? " (it shows none)" : " (it shows \(shown.joined(separator: ", ")))"
    }
}
