import Foundation
import HeraldCore
import HeraldDeviceHost
import HeraldSimulator
import HeraldStore
import HeraldTestSupport
import HeraldTestTiers
import HeraldTesting
import Testing

/// The kit's web apps with the sites' real service workers (`Examples/WebPush`, run under Node): what `sw.js` shows
/// and what its `notificationclick` opens, and Safari's revocation of a worker that shows nothing.
@Suite("TestWebApp with a service worker: sw.js shown and its tap opens the URL; silent-sw.js not shown, then revoked", .tier(.process))
struct TestWebAppServiceWorkerTests {
    /// `Examples/WebPush/<name>`.
    static func example(_ name: String) -> String {
        URL(fileURLWithPath: #filePath).deletingLastPathComponent().appendingPathComponent("../../Examples/WebPush/\(name)").standardizedFileURL.path
    }

    @Test("Examples/WebPush/sw.js shows the push's JSON on a Home Screen web app; a tap runs notificationclick, which opens its URL, into the trace")
    func serviceWorkerShownAndTapped() async throws {
        try await withHeraldServer { server in
            let site = WebPushSite()
            let web = try await server.addWebApp(
                origin: site.origin,
                applicationServerKey: site.applicationServerKey,
                kind: .homeScreen,
                serviceWorker: Self.example("sw.js")
            )
            #expect(web.deviceName == "Test iPhone")
            let push = #"{"title":"Order shipped","body":"Arrives Tuesday","url":"/orders/42","tag":"order-42"}"#
            let sent = try await server.sendWebPush(push, to: web, from: site, urgency: .high)
            #expect(sent.status == 201, "\(sent)")
            let apnsID = try #require(sent.apnsID)
            // Node starts for the first event: more than the default 5 s on a busy machine.
            let shown = try await web.expectNotification(titled: "Order shipped", within: .seconds(30))
            #expect(shown.source == .serviceWorker && shown.body == "Arrives Tuesday" && shown.tag == "order-42")
            #expect(try await web.expectReport(.decrypted, for: apnsID).detail["declarative"] == nil)
            try await server.expectTrace(of: apnsID, contains: .shown)

            #expect(try await web.tap(shown.id) == ["https://shop.example/orders/42"])
            #expect(await web.notifications.isEmpty)
            let action = try await server.expectTraceEvent(.action, of: apnsID)
            #expect(action.detail["opened"] == .array(["https://shop.example/orders/42"]))
            #expect(await web.silentPushes == 0)
        }
    }

    @Test("Examples/WebPush/silent-sw.js shows nothing: each push not-shown and counted; Safari's count revokes, and the endpoint then answers 410")
    func silentServiceWorkerRevoked() async throws {
        try await withHeraldServer(.cleartextOnly) { server in
            let site = WebPushSite()
            let web = try await server.addWebApp(
                origin: site.origin,
                applicationServerKey: site.applicationServerKey,
                serviceWorker: Self.example("silent-sw.js")
            )
            for count in 1...WebApp.maximumSilentPushes {
                #expect(await web.subscription == .subscribed(endpoint: web.endpoint))
                let sent = try await server.sendWebPush(#"{"title":"Hello \#(count)"}"#, to: web, from: site)
                let apnsID = try #require(sent.apnsID, "\(sent)")
                let notShown = try await web.expectReport(.notShown, for: apnsID, within: .seconds(30))
                #expect(notShown.detail["silentPushes"] == .integer(count))
                #expect(notShown.detail["reason"]?.stringValue?.hasPrefix("the service worker showed no notification") == true)
                #expect(notShown.detail["revoked"] == (count == WebApp.maximumSilentPushes ? .bool(true) : nil))
                try await server.expectTrace(of: apnsID, contains: .notShown)
            }
            let reason = try await web.expectRevoked()
            #expect(reason.hasPrefix("\(WebApp.maximumSilentPushes) pushes showed no notification"), "\(reason)")
            #expect(await web.notifications.isEmpty)
            #expect(await web.silentPushes == WebApp.maximumSilentPushes)

            // The device told the push service: a site's next push learns the subscription is gone.
            let gone = try await eventually("the endpoint answers 410", within: .seconds(120)) {
                let answer = try await server.sendWebPush(#"{"title":"Anyone?"}"#, to: web, from: site)
                return answer.status == 410 ? answer : nil
            }
            #expect(gone.reason == "Unregistered")
        }
    }
}
