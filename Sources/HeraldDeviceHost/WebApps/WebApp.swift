import Foundation
import HeraldCore
import HeraldDeviceLink
import HeraldServiceWorker
import HeraldWebPush

/// A web app on a simulated device — a site in Safari on a Mac, or a Home Screen web app on an iPhone — with its one
/// push subscription: it decrypts what arrives, shows declarative messages, runs its service worker for the rest, and
/// keeps what it shows (docs/web-push.md, "The browser side").
///
/// Nothing here needs a server: ``receive(_:)`` takes a delivered notification and returns the reports, ``tap(_:)``
/// runs a click. A ``LinkedDevice`` subscribes it on each connection and routes to it the notifications sent to
/// ``subscriptionID``.
public actor WebApp {
    /// Which kind of web app: it decides nothing here but what the screen says, and which device may hold it.
    public enum Kind: String, Sendable, Hashable {
        /// A site in Safari on a Mac (Safari 16+ on macOS 13+).
        case safari
        /// A web app added to the Home Screen of an iPhone or iPad (iOS 16.4+): the only web push on iOS.
        case homeScreen = "home-screen"
    }

    /// What the web app is: its origin, the server key it subscribes with, its kind and its service worker.
    public struct Configuration: Sendable, Hashable {
        /// The site's origin, `https://host[:port]`.
        public var origin: String
        /// The `applicationServerKey` the page subscribes with: the site's VAPID public key, base64url.
        public var applicationServerKey: String
        /// Safari on a Mac, or a Home Screen web app.
        public var kind: Kind
        /// The site's service worker script (`sw.js`), run under Node; `nil` for a site without one (declarative
        /// messages only).
        public var serviceWorkerPath: String?
        /// How long one service worker event may take (``ServiceWorkerConfiguration/timeBudget``).
        public var serviceWorkerBudget: Duration = .seconds(30)
        /// The silent pushes after which the subscription is revoked: ``WebApp/maximumSilentPushes``.
        public var maximumSilentPushes = WebApp.maximumSilentPushes

        /// A configuration; the origin and key are checked by ``WebApp/init(configuration:keys:subscriptionID:now:)``.
        public init(origin: String, applicationServerKey: String, kind: Kind, serviceWorkerPath: String? = nil) {
            self.origin = origin
            self.applicationServerKey = applicationServerKey
            self.kind = kind
            self.serviceWorkerPath = serviceWorkerPath
        }
    }

    /// Where the subscription stands.
    public enum SubscriptionState: Sendable, Hashable {
        /// Not yet subscribed on the push service (before the first connection).
        case pending
        /// Subscribed: the push service gave this endpoint.
        case subscribed(endpoint: String)
        /// Revoked by the device (too many silent pushes): nothing more is shown, and the push service is told.
        case revoked(reason: String)
    }

    /// How many pushes that show nothing Safari takes before it revokes the subscription: WebKit's
    /// `maxSilentPushCount` (Source/WebKit/Shared/WebPushDaemonConstants.h), checked in `PushService::
    /// incrementSilentPushCount` (Source/WebKit/webpushd/PushService.mm), which removes the origin's subscriptions
    /// once the count reaches it: the third such push revokes.
    public static let maximumSilentPushes = 3

    /// What the web app is.
    public nonisolated let configuration: Configuration
    /// The subscription's keys (RFC 8291): the public half goes to the site, the private half decrypts.
    public nonisolated let keys: WebPushSubscriptionKeys
    /// The subscription's id: the token the push service delivers to, and the endpoint's last path segment.
    public nonisolated let subscriptionID: DeviceToken
    /// The server key, its canonical base64url form.
    public nonisolated let applicationServerKey: VAPIDPublicKey

    /// Where the subscription stands.
    public internal(set) var subscription: SubscriptionState = .pending
    /// The notifications on screen, oldest first.
    public internal(set) var notifications: [WebAppNotification] = []
    /// The app badge (`nil`: none set).
    public internal(set) var badge: AppBadgeChange?
    /// The pushes that showed nothing, counted against the subscription.
    public internal(set) var silentPushes = 0
    /// Whether the user removed the web app's permission for notifications (``removePermission()``): what arrives then
    /// is dropped (`not-shown`), not counted as a silent push.
    public internal(set) var permissionRemoved = false
    /// Whether the push service asked the device to unsubscribe when the permission is removed (`web-push-subscribed`).
    var unsubscribesOnPermissionRemoval = false

    let worker: ServiceWorkerHost?
    var workerStarted = false
    let now: @Sendable () -> Date
    var nextNotification = 1

    /// A web app with new keys and a new subscription id, or with kept ones (a restarted device still decrypts what
    /// was sent to its earlier subscription).
    ///
    /// - Throws: ``WebAppError`` when the origin is not an `https:` (or `http:`) origin, or the key is not a P-256
    ///   public key.
    public init(
        configuration: Configuration,
        keys: WebPushSubscriptionKeys = WebPushSubscriptionKeys(),
        subscriptionID: DeviceToken = .random(),
        now: @escaping @Sendable () -> Date = Date.init
    ) throws(WebAppError) {
        // Serialized as the device link checks it (a browser's serialization: lowercase, no default port).
        guard let origin = DeviceLinkClientMessage.webPushOrigin(configuration.origin) else {
            throw WebAppError("the web app's origin \"\(configuration.origin)\" is not an origin such as https://example.com (no path)")
        }
        let key: VAPIDPublicKey
        do {
            key = try VAPIDPublicKey(base64URL: configuration.applicationServerKey, field: "applicationServerKey")
        } catch {
            throw WebAppError("the applicationServerKey of \(origin): \(error.explanation)")
        }
        var configuration = configuration
        configuration.origin = origin
        configuration.applicationServerKey = key.base64URL
        self.configuration = configuration
        self.keys = keys
        self.subscriptionID = subscriptionID
        self.applicationServerKey = key
        self.now = now
        worker = configuration.serviceWorkerPath.map { path in
            var worker = ServiceWorkerConfiguration(scriptPath: path, origin: origin)
            worker.timeBudget = configuration.serviceWorkerBudget
            return ServiceWorkerHost(configuration: worker)
        }
    }

    /// The origin.
    public nonisolated var origin: String { configuration.origin }

    /// The endpoint, once subscribed.
    public var endpoint: String? {
        if case .subscribed(let endpoint) = subscription { return endpoint }
        return nil
    }

    /// The push service subscribed the web app at `endpoint` (on each connection; the same endpoint again), and said
    /// whether it wants to hear of a removed permission. A revoked subscription stays revoked.
    ///
    /// Returns whether the device must unsubscribe now: the user removed the permission while the device was away, and
    /// the push service wants to hear of it (``removePermission()``).
    @discardableResult
    public func subscribed(endpoint: String, unsubscribeOnPermissionRemoval: Bool = false) -> Bool {
        if case .revoked = subscription { return false }
        subscription = .subscribed(endpoint: endpoint)
        unsubscribesOnPermissionRemoval = unsubscribeOnPermissionRemoval
        return permissionRemoved && revokeForRemovedPermission()
    }

    /// The user removes the web app's permission for notifications (Safari's Settings → Websites → Notifications, or
    /// the Home Screen web app's notification settings). Shown notifications stay where they are; what arrives from
    /// then on is dropped. The push service is told only when it asked for it (`herald serve
    /// --web-push-removed-permission unregistered`): the subscription is then revoked, and its endpoint answers `410`;
    /// otherwise it goes on answering `201`, as Apple's is reported to (docs/web-push.md). A restarted
    /// `herald device --web-app` asks again, and the command line is the user's yes.
    ///
    /// Returns whether the device must unsubscribe (`web-push-unsubscribe`).
    public func removePermission() -> Bool {
        guard !permissionRemoved else { return false }
        permissionRemoved = true
        return revokeForRemovedPermission()
    }

    /// Revokes the subscription for the removed permission when the push service asked to hear of it; returns whether
    /// it did.
    private func revokeForRemovedPermission() -> Bool {
        guard unsubscribesOnPermissionRemoval, case .subscribed = subscription else { return false }
        subscription = .revoked(reason: "the user removed the web app's permission for notifications")
        return true
    }

    /// The subscription as the Push API's `PushSubscription.toJSON()` gives it to the page, one line (what a page
    /// sends its server): `{"endpoint":…,"expirationTime":null,"keys":{"p256dh":…,"auth":…}}`; `nil` until subscribed.
    public func toJSON() -> String? {
        endpoint.map { Self.subscriptionJSON(endpoint: $0, keys: keys) }
    }

    /// `PushSubscription.toJSON()` for `endpoint` and `keys`, one line, keys base64url without padding.
    public static func subscriptionJSON(endpoint: String, keys: WebPushSubscriptionKeys) -> String {
        var writer = JSONTextWriter()
        writer.beginObject()
        writer.member("endpoint", endpoint)
        writer.key("expirationTime")
        writer.null()
        writer.key("keys")
        writer.beginObject()
        writer.member("p256dh", keys.p256dh)
        writer.member("auth", keys.auth)
        writer.endObject()
        writer.endObject()
        return String(decoding: writer.bytes, as: UTF8.self)
    }

    /// Ends the service worker's process (a later event starts it again).
    public func stop() async {
        await worker?.stop()
        workerStarted = false
    }
}

/// A web app that cannot be made as asked (its origin, its key), in one line.
public struct WebAppError: Error, Hashable, Sendable, CustomStringConvertible {
    /// What is wrong.
    public let description: String

    /// An error saying `description`.
    public init(_ description: String) {
        self.description = description
    }
}
