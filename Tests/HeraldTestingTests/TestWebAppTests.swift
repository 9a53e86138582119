import Foundation
import HeraldCore
import HeraldDeviceHost
import HeraldGateway
import HeraldStore
import HeraldTestSupport
import HeraldTestTiers
import HeraldTesting
import Testing

/// The kit's web apps against its server (docs/testing-kit.md, "Web push"): a site's push through
/// `HeraldTestServer.sendWebPush` to the endpoint a `TestWebApp` subscribed at, and the expectations on what it shows.
/// Declarative messages only here: nothing runs under Node (the service worker's are in `TestWebAppServiceWorkerTests`).
@Suite("TestWebApp: declarative push shown and tapped, a foreign VAPID key refused, Topic while offline, wait and reset", .tier(.inProcess))
struct TestWebAppTests {
    static let declarative = #"""
        {"web_push":8030,"notification":{"title":"Order shipped","body":"Arrives Tuesday","navigate":"https://shop.example/orders/42"},"app_badge":3}
        """#

    /// A declarative message titled `title` that opens the order's page.
    static func declarative(_ title: String) -> String {
        #"{"web_push":8030,"notification":{"title":"\#(title)","navigate":"https://shop.example/orders/42"}}"#
    }

    @Test(
        "the subscription a page would send its server; a declarative push is 201, shown with its badge, decrypted and shown in its trace; a tap opens navigate"
    )
    func declarativePushShown() async throws {
        try await withHeraldServer { server in
            let site = WebPushSite(origin: "https://Shop.example:443")
            let web = try await server.addWebApp(origin: site.origin, applicationServerKey: site.applicationServerKey)
            #expect(web.origin == "https://shop.example")
            #expect(web.deviceName == "Test Mac")
            // The push service's origin is the TLS port when there is one.
            #expect(web.endpoint == "\(try #require(server.tlsURL))/push/\(web.subscriptionID)")
            let subscription = try #require(try JSONParser.parse(Array(web.subscriptionJSON.utf8)).objectValue)
            #expect(subscription["endpoint"]?.stringValue == web.endpoint)
            #expect(subscription["expirationTime"] == .null)
            #expect(subscription["keys"]?.objectValue?["p256dh"]?.stringValue == web.keys.p256dh)
            #expect(subscription["keys"]?.objectValue?["auth"]?.stringValue == web.keys.auth)

            let sent = try await server.sendWebPush(Self.declarative, to: web, from: site)
            #expect(sent.status == 201, "\(sent)")
            let apnsID = try #require(sent.apnsID)
            #expect(sent.location == "\(try #require(server.tlsURL))/message/\(apnsID)")
            #expect(sent.ttl == 3600)

            let shown = try await web.expectNotification(titled: "Order shipped")
            #expect(shown.body == "Arrives Tuesday" && shown.source == .declarative && shown.apnsID?.text == apnsID)
            #expect(await web.badge == .count(3))
            let decrypted = try await web.expectReport(.decrypted, for: apnsID)
            #expect(decrypted.detail["declarative"] == .bool(true))
            #expect(web.reports(for: apnsID).map(\.event) == [.decrypted, .shown])
            try await server.expectTrace(of: apnsID, contains: .shown)
            #expect(try await server.trace(of: apnsID).map(\.kind).contains(.decrypted))
            #expect(await web.silentPushes == 0)

            let shownAgain = await #expect(throws: HeraldExpectationFailure.self) { try await web.expectNoNotification(titled: "Order shipped") }
            #expect(shownAgain?.description == "web app https://shop.example on 'Test Mac' shows \"Order shipped\", which was not expected")
            try await web.expectNoNotification(during: .milliseconds(100))

            #expect(try await web.tap(shown.id) == ["https://shop.example/orders/42"])
            #expect(await web.notifications.isEmpty)
            try await server.expectTrace(of: apnsID, contains: .action)

            // The kit's failures say what was expected and what was seen.
            let failure = await #expect(throws: HeraldExpectationFailure.self) {
                try await web.expectNotification(titled: "Never sent", within: .milliseconds(100))
            }
            #expect(
                failure?.description
                    == "web app https://shop.example on 'Test Mac' shows no notification titled \"Never sent\" within 0.1 seconds (it shows none)"
            )
            let notRevoked = await #expect(throws: HeraldExpectationFailure.self) { try await web.expectRevoked(within: .milliseconds(100)) }
            #expect(
                notRevoked?.description
                    == "web app https://shop.example on 'Test Mac' was not revoked within 0.1 seconds (0 pushes showed nothing; the device revokes at \(WebApp.maximumSilentPushes))"
            )
            let tapFailure = await #expect(throws: HeraldExpectationFailure.self) { try await web.tap(shown.id) }
            #expect(tapFailure?.description.contains("no notification \"\(shown.id)\"") == true)
        }
    }

    @Test("removePermission: the next push is 201 as Apple answers, dropped with a not-shown report that says why, uncounted")
    func removedPermission() async throws {
        try await withHeraldServer { server in
            let site = WebPushSite(origin: "https://shop.example")
            let web = try await server.addWebApp(origin: site.origin, applicationServerKey: site.applicationServerKey)
            try await web.removePermission()
            let sent = try await server.sendWebPush(Self.declarative("After"), to: web, from: site)
            #expect(sent.status == 201, "\(sent)")
            let apnsID = try #require(sent.apnsID)
            let dropped = try await web.expectReport(.notShown, for: apnsID, within: .seconds(120))
            #expect(dropped.detail["reason"]?.stringValue?.contains("removed the web app's permission") == true, "\(dropped)")
            try await server.expectTrace(of: apnsID, contains: .notShown, within: .seconds(120))
            try await web.expectNoNotification(titled: "After")
            #expect(await web.silentPushes == 0)
            guard case .subscribed = await web.subscription else {
                Issue.record("the push service was told: \(await web.subscription)")
                return
            }
        }
    }

    @Test("a push signed with another VAPID key than the subscription's: 403 BadJwtToken with Herald's explanation, nothing shown")
    func anotherKeyRefused() async throws {
        try await withHeraldServer(.cleartextOnly) { server in
            let site = WebPushSite()
            let device = try await server.addDevice(named: "Shop's iPhone", webApps: [site.webApp(kind: .homeScreen)])
            let web = try device.webApp("https://shop.example")
            #expect(web.endpoint == "\(server.cleartextURL)/push/\(web.subscriptionID)")

            let impostor = WebPushSite(origin: site.origin, subject: site.subject)
            #expect(impostor.applicationServerKey != site.applicationServerKey)
            let refused = try await server.sendWebPush(Self.declarative("Not from the shop"), to: web, from: impostor)
            #expect(refused.status == 403)
            #expect(refused.reason == "BadJwtToken")
            #expect(refused.location == nil)
            let explanation = try #require(refused.explanation)
            #expect(explanation.contains("is not the key the subscription was made with"), "\(explanation)")

            // The site's own key goes through; what was refused never shows.
            let accepted = try await server.sendWebPush(Self.declarative("From the shop"), to: web, from: site)
            #expect(accepted.status == 201, "\(accepted)")
            try await web.expectNotification(titled: "From the shop")
            try await web.expectNoNotification(titled: "Not from the shop", during: .milliseconds(300))
            #expect(await web.notifications.map(\.title) == ["From the shop"])
        }
    }

    @Test(
        "while the web app's device is off the link, a newer message with the same Topic replaces the older; the device shows the newest and the other message"
    )
    func topicReplacesWhileOffline() async throws {
        var options = HeraldTestServer.Options.cleartextOnly
        // Room for every message a device may miss, so that only Topic replaces (Apple keeps one per app).
        options.offlineSlotsPerApp = 3
        try await withHeraldServer(options) { server in
            let site = WebPushSite()
            let web = try await server.addWebApp(origin: site.origin, applicationServerKey: site.applicationServerKey)
            // Ten minutes of server time, from the first push on: only the clock's jump below ends it.
            let rule = #"{"id": "off", "match": {"token": "\#(web.subscriptionID)"}, "deviceOffline": true, "forMs": 600000, "count": 1}"#
            try server.faults.add(FaultRule(json: Array(rule.utf8)))

            let packed = try #require(
                try await server.sendWebPush(Self.declarative("Order 42 packed"), to: web, from: site, topic: "order-42").apnsID
            )
            let stored = try await server.expectTraceEvent(.stored, of: packed)
            #expect(stored.detail["reason"] == .string("device-offline"))
            try await eventually("the web app's device left the link", within: .seconds(120)) { !web.linked.isConnected }
            let news = try #require(try await server.sendWebPush(Self.declarative("Weekly news"), to: web, from: site).apnsID)
            let shipped = try #require(
                try await server.sendWebPush(Self.declarative("Order 42 shipped"), to: web, from: site, topic: "order-42").apnsID
            )
            try await server.expectState(of: packed, is: .replaced)
            #expect(try await server.state(of: shipped) == .stored)
            #expect(await web.notifications.isEmpty)

            server.clock.advance(by: .seconds(601))
            try await web.expectNotification(titled: "Order 42 shipped", within: .seconds(15))
            try await web.expectNotification(titled: "Weekly news", within: .seconds(60))
            try await server.expectState(of: shipped, is: .delivered)
            try await server.expectState(of: news, is: .delivered)
            #expect(web.reports(for: packed).isEmpty)
            #expect(await !web.notifications.map(\.title).contains("Order 42 packed"))
        }
    }

    @Test(
        "from any language: the inspection API's wait finds a web push by its subscription id; a reset keeps the web app subscribed and forgets refusals"
    )
    func waitAndResetOverHTTP() async throws {
        try await withHeraldServer(.cleartextOnly) { server in
            let site = WebPushSite()
            let web = try await server.addWebApp(origin: site.origin, applicationServerKey: site.applicationServerKey)
            async let waited = ConsoleHTTP.get(server.inspectionURL, "notifications/wait?token=\(web.subscriptionID)&state=delivered&timeoutMs=20000")
            let apnsID = try #require(try await server.sendWebPush(Self.declarative("Before the reset"), to: web, from: site).apnsID)
            let answer = try await waited
            #expect(answer.status == 200)
            let listed = answer.object?["notifications"] as? [[String: Any]] ?? []
            #expect(listed.compactMap { $0["apnsID"] as? String } == [apnsID])

            // A refused push has a trace of its own (kept in memory): a reset forgets it too.
            let refused = try await server.sendWebPush(Self.declarative("Refused"), to: web, from: WebPushSite(origin: site.origin))
            let refusedID = try #require(refused.apnsID)
            #expect(refused.status == 403)
            let refusedTrace = try await ConsoleHTTP.get(server.inspectionURL, "notifications/\(refusedID)/trace")
            let kinds = (refusedTrace.object?["trace"] as? [[String: Any]])?.compactMap { $0["kind"] as? String }
            #expect(refusedTrace.status == 200 && kinds == ["refused"], "\(refusedTrace.status) \(refusedTrace.object ?? [:])")

            let reset = try await ConsoleHTTP.post(server.inspectionURL, "reset", [:])
            #expect(reset.status == 200)
            #expect(try await server.state(of: apnsID) == nil)
            #expect(try await ConsoleHTTP.get(server.inspectionURL, "notifications/\(refusedID)/trace").status == 404)
            // The device and its subscription stay: the same endpoint takes the next push.
            let after = try await server.sendWebPush(Self.declarative("After the reset"), to: web, from: site)
            #expect(after.status == 201, "\(after)")
            try await web.expectNotification(titled: "After the reset")
        }
    }
}
