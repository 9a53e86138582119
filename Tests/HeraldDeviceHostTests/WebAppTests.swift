import Foundation
import HeraldCore
import HeraldDeviceHost
import HeraldDeviceLink
import HeraldSimulator
import HeraldTestTiers
import HeraldWebPush
import Testing

/// A web app's runtime without a server: what a site's server encrypts is decrypted, then shown as a declarative
/// message or by the site's real `sw.js` under Node (docs/web-push.md, "The browser side").
@Suite("Web app: decrypt, declarative messages, the service worker, Safari's silent-push rule", .tier(.process))
struct WebAppTests {
    static let declarative = #"""
        {"web_push":8030,"notification":{"title":"Order shipped","body":"Arrives Tuesday","navigate":"https://shop.example/orders/42","tag":"order-42"},"app_badge":3}
        """#

    @Test("a declarative message encrypted with the site's keys is decrypted and shown; a tap opens its navigate URL")
    func declarativeRoundTrip() async throws {
        let site = try WebAppFixture()
        let app = try site.webApp()
        let delivery = await app.receive(try site.message(Self.declarative, to: app))
        #expect(delivery.reports.map(\.event) == [.decrypted, .shown])
        #expect(delivery.reports[0].detail["declarative"] == .bool(true))
        #expect(delivery.reports[0].detail["length"] == .integer(Self.declarative.utf8.count))
        let shown = delivery.reports[1]
        #expect(shown.detail["title"] == "Order shipped" && shown.detail["body"] == "Arrives Tuesday" && shown.detail["tag"] == "order-42")
        #expect(shown.bundleID == "https://shop.example")
        #expect(await app.badge == .count(3))
        let notification = try #require(await app.notifications.first)
        #expect(notification.source == .declarative && notification.navigate == "https://shop.example/orders/42")

        // The same tag replaces it.
        let again = await app.receive(try site.message(Self.declarative.replacingOccurrences(of: "Tuesday", with: "Monday"), to: app))
        #expect(again.reports.last?.detail["replaced"] == .string(notification.id))
        #expect(await app.notifications.map(\.body) == ["Arrives Monday"])

        let tapped = try #require(await app.notifications.first)
        let tap = try await app.tap(tapped.id)
        #expect(tap.event == .action)
        #expect(tap.detail["opened"] == .array(["https://shop.example/orders/42"]))
        #expect(await app.notifications.isEmpty)
        #expect(delivery.reports.compactMap { DeviceLinkReport($0) }.map(\.event) == [.decrypted, .shown])
    }

    @Test("Examples/WebPush/sw.js shows the push's JSON; a tap runs notificationclick, which opens its URL")
    func serviceWorkerShowsAndOpens() async throws {
        let site = try WebAppFixture()
        let app = try site.webApp(example: "sw.js", kind: .homeScreen)
        let push = #"{"title":"Order shipped","body":"Arrives Tuesday","url":"/orders/42","tag":"order-42"}"#
        let delivery = await app.receive(try site.message(push, to: app))
        await app.stop()
        #expect(delivery.reports.map(\.event) == [.decrypted, .shown])
        #expect(delivery.reports[0].detail["declarative"] == nil)
        #expect(delivery.reports[1].detail["title"] == "Order shipped" && delivery.reports[1].detail["source"] == "service-worker")
        let shown = try #require(await app.notifications.first)
        // The worker starts again for the click (its process was stopped above, as a browser stops an idle worker).
        let tap = try await app.tap(shown.id)
        await app.stop()
        #expect(tap.detail["opened"] == .array(["https://shop.example/orders/42"]))
        #expect(tap.detail["errors"] == nil)
        #expect(await app.notifications.isEmpty)
        #expect(await app.silentPushes == 0)

        // Another one, dismissed: it leaves the screen and the worker gets notificationclose.
        _ = await app.receive(try site.message(push, to: app))
        let second = try #require(await app.notifications.first)
        let dismissed = try await app.dismiss(second.id)
        await app.stop()
        #expect(dismissed.event == .dismissed && dismissed.detail["errors"] == nil)
        #expect(await app.notifications.isEmpty)
        await #expect(throws: WebAppError.self) { try await app.dismiss(second.id) }
    }

    @Test("Examples/WebPush/silent-sw.js shows nothing: not-shown each time, and the third revokes the subscription")
    func silentWorkerIsRevoked() async throws {
        let site = try WebAppFixture()
        let app = try site.webApp(example: "silent-sw.js")
        await app.subscribed(endpoint: "https://127.0.0.1:2197/push/\(app.subscriptionID.hex)")
        for count in 1...WebApp.maximumSilentPushes {
            let delivery = await app.receive(try site.message(#"{"title":"Hello"}"#, to: app))
            #expect(delivery.reports.map(\.event) == [.decrypted, .notShown])
            let reason = delivery.reports.last?.detail["reason"]?.stringValue ?? ""
            #expect(reason.hasPrefix("the service worker showed no notification"), "\(reason)")
            #expect(delivery.reports.last?.detail["silentPushes"] == .integer(count))
            #expect(delivery.revoked == (count == WebApp.maximumSilentPushes))
        }
        guard case .revoked = await app.subscription else {
            Issue.record("the third silent push leaves the subscription \(await app.subscription)")
            return
        }
        #expect(await app.toJSON() == nil)
        // Nothing more is run for a revoked subscription.
        let after = await app.receive(try site.message(#"{"title":"Hello"}"#, to: app))
        await app.stop()
        #expect(after.reports.map(\.event) == [.notShown])
        #expect(after.reports[0].detail["reason"]?.stringValue?.hasPrefix("the subscription was revoked") == true)
    }

    @Test("after the user removes the permission, what arrives is not-shown and uncounted; the push service is told only when it asked")
    func removedPermission() async throws {
        let site = try WebAppFixture()
        let app = try site.webApp()
        await app.subscribed(endpoint: "https://127.0.0.1:2197/push/\(app.subscriptionID.hex)")
        #expect(await app.removePermission() == false, "the push service did not ask to hear of it")
        #expect(await app.removePermission() == false, "a second removal is nothing")
        #expect(await app.screen().dictionaryValue?["permission"] == "removed")
        for _ in 0...WebApp.maximumSilentPushes {
            let delivery = await app.receive(try site.message(Self.declarative, to: app))
            #expect(delivery.reports.map(\.event) == [.notShown])
            #expect(delivery.reports[0].detail["reason"]?.stringValue?.hasPrefix("the user removed the web app's permission") == true)
            #expect(!delivery.revoked)
        }
        #expect(await app.silentPushes == 0)
        #expect(await app.notifications.isEmpty)
        guard case .subscribed = await app.subscription else {
            Issue.record("the subscription is \(await app.subscription)")
            return
        }

        // A push service that answers 410 for it asked to be told: the subscription is revoked, and the device unsubscribes.
        let told = try site.webApp()
        #expect(await told.screen().dictionaryValue?["permission"] == "granted")
        await told.subscribed(endpoint: "https://127.0.0.1:2197/push/\(told.subscriptionID.hex)", unsubscribeOnPermissionRemoval: true)
        #expect(await told.removePermission() == true)
        guard case .revoked(let reason) = await told.subscription else {
            Issue.record("the subscription is \(await told.subscription)")
            return
        }
        #expect(reason.contains("removed the web app's permission"))

        // Removed while the device was away (not yet subscribed): the next subscription's answer decides.
        let away = try site.webApp()
        #expect(await away.removePermission() == false)
        #expect(await away.subscribed(endpoint: "https://127.0.0.1:2197/push/\(away.subscriptionID.hex)", unsubscribeOnPermissionRemoval: true))
        guard case .revoked = await away.subscription else {
            Issue.record("the subscription is \(await away.subscription)")
            return
        }
        let kept = try site.webApp()
        #expect(await kept.removePermission() == false)
        #expect(await kept.subscribed(endpoint: "https://127.0.0.1:2197/push/\(kept.subscriptionID.hex)") == false)
        #expect(await kept.endpoint != nil, "answered as sent: the subscription stays")
    }

    @Test("a mutable declarative message whose worker shows nothing falls back to the declarative notification, uncounted")
    func mutableFallsBack() async throws {
        let site = try WebAppFixture()
        let app = try site.webApp(example: "silent-sw.js")
        let mutable = Self.declarative.replacingOccurrences(of: #""app_badge":3"#, with: #""app_badge":3,"mutable":true"#)
        let delivery = await app.receive(try site.message(mutable, to: app))
        await app.stop()
        #expect(delivery.reports.map(\.event) == [.decrypted, .shown])
        #expect(delivery.reports[1].detail["source"] == "declarative")
        #expect(await app.silentPushes == 0)
    }

    @Test("a body that does not decrypt, or a payload that is no web push message, is not-shown with why")
    func badBodies() async throws {
        let site = try WebAppFixture()
        let app = try site.webApp()
        let other = try site.webApp()
        // Encrypted for another subscription's keys.
        var stolen = try site.message(Self.declarative, to: other)
        stolen.token = app.subscriptionID
        let wrongKeys = await app.receive(stolen)
        #expect(wrongKeys.reports.map(\.event) == [.notShown])
        let reason = wrongKeys.reports[0].detail["reason"]?.stringValue ?? ""
        #expect(reason.hasPrefix("cannot decrypt: "), "\(reason)")
        // Random octets as the body.
        let garbage = WebPushStoredMessage(encoding: .aes128gcm, body: Array(repeating: 7, count: 40), urgency: .normal, ttl: WebPushTTL(seconds: 60))
        let noise = await app.receive(WebAppFixture.notification(garbage.payload, to: app))
        #expect(noise.reports.map(\.event) == [.notShown])
        #expect(noise.reports[0].detail["reason"]?.stringValue?.hasPrefix("cannot decrypt: ") == true)
        // An APNs payload.
        let apns = await app.receive(WebAppFixture.notification(Array(#"{"aps":{"alert":"hi"}}"#.utf8), to: app))
        #expect(apns.reports[0].detail["reason"]?.stringValue?.contains("not a web push message") == true)
        #expect(await app.notifications.isEmpty)
        #expect(await app.silentPushes == 0)
    }

    @Test("without a service worker, a push that is not declarative shows nothing and is counted")
    func noWorker() async throws {
        let site = try WebAppFixture()
        let app = try site.webApp()
        let delivery = await app.receive(try site.message(#"{"title":"Hello"}"#, to: app))
        #expect(delivery.reports.map(\.event) == [.decrypted, .notShown])
        #expect(await app.silentPushes == 1)
    }

    @Test("toJSON is PushSubscription.toJSON(): endpoint, null expirationTime, base64url keys without padding, one line")
    func subscriptionJSON() async throws {
        let site = try WebAppFixture()
        let app = try site.webApp()
        #expect(await app.toJSON() == nil)
        let endpoint = "https://127.0.0.1:2197/push/\(app.subscriptionID.hex)"
        await app.subscribed(endpoint: endpoint)
        let json = try #require(await app.toJSON())
        #expect(!json.contains("\n") && !json.contains("="))
        #expect(json == #"{"endpoint":"\#(endpoint)","expirationTime":null,"keys":{"p256dh":"\#(app.keys.p256dh)","auth":"\#(app.keys.auth)"}}"#)
        // What a site's server does with it: encrypt to p256dh and auth.
        let object = try #require(try JSONParser.parse(Array(json.utf8)).objectValue)
        let keys = try #require(object["keys"]?.objectValue)
        #expect(Base64URL.decode(try #require(keys["p256dh"]?.stringValue).utf8)?.count == 65)
        #expect(Base64URL.decode(try #require(keys["auth"]?.stringValue).utf8)?.count == 16)
    }

    @Test("an origin with a path, or a key that is not a P-256 point, is refused; the origin is serialized")
    func configurationChecks() throws {
        let site = try WebAppFixture()
        let key = site.vapid.publicKey.base64URL
        #expect(throws: WebAppError.self) {
            try WebApp(configuration: .init(origin: "https://shop.example/app", applicationServerKey: key, kind: .safari))
        }
        #expect(throws: WebAppError.self) {
            try WebApp(configuration: .init(origin: "https://shop.example", applicationServerKey: "AAAA", kind: .safari))
        }
        let app = try WebApp(configuration: .init(origin: "HTTPS://Shop.Example:443", applicationServerKey: key, kind: .safari))
        #expect(app.origin == "https://shop.example")
    }
}
