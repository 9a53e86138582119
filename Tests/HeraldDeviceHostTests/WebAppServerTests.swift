import Foundation
import HeraldCore
import HeraldDeviceHost
import HeraldDeviceLink
import HeraldSimulator
import HeraldTestSupport
import HeraldTestTiers
import HeraldTesting
import HeraldWebPush
import Testing

#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// A web app against a server of the testing kit: it subscribes over the device link, a site posts to its endpoint
/// as pywebpush would, and the device decrypts and shows it, into the message's trace (docs/web-push.md).
@Suite("Web app against a server: subscribe, push, decrypt, show, trace; revoked, the endpoint answers 410", .tier(.inProcess))
struct WebAppServerTests {
    /// A site's `POST` of `plaintext` to `endpoint`, encrypted for `app` and signed with `site`'s VAPID key, over
    /// HTTP/1.1; the status and the `apns-id`.
    static func push(_ plaintext: String, to endpoint: String, app: WebApp, site: WebAppFixture) async throws -> (status: Int, apnsID: String?) {
        let body = try WebPushEncryption.encrypt(Array(plaintext.utf8), p256dh: app.keys.p256dh, auth: app.keys.auth)
        var request = URLRequest(url: try #require(URL(string: endpoint)), cachePolicy: .reloadIgnoringLocalCacheData, timeoutInterval: 15)
        request.httpMethod = "POST"
        request.httpBody = Data(body)
        let authorization = try site.vapid.authorization(endpoint: endpoint, nowSeconds: Int64(Date().timeIntervalSince1970))
        for (name, value) in [("authorization", authorization), ("ttl", "3600"), ("content-encoding", "aes128gcm")] {
            request.setValue(value, forHTTPHeaderField: name)
        }
        let (_, response) = try await URLSession.shared.data(for: request)
        let http = try #require(response as? HTTPURLResponse)
        return (http.statusCode, http.value(forHTTPHeaderField: "apns-id"))
    }

    @Test("subscribed on connect; a declarative push is decrypted and shown in its trace; the third silent one revokes: 410")
    func roundTrip() async throws {
        var options = HeraldTestServer.Options()
        options.tls = false
        let site = try WebAppFixture()
        let app = try site.webApp(example: "silent-sw.js")
        try await withHeraldServer(options) { server in
            let credentials = try await server.server.store.addDevice(name: "mac")
            let port = try #require(URL(string: server.deviceLinkURL)?.port)
            var link = DeviceLinkClient.Configuration(host: "127.0.0.1", port: port)
            link.path = "/device-link"
            let configuration = LinkedDevice.Configuration(link: link, hello: .device(id: credentials.device.id, secret: credentials.secret))
            let linked = LinkedDevice(
                device: try await SimulatedDevice(manifest: DeviceManifest(name: "mac", apps: [])),
                configuration: configuration,
                webApps: [app]
            )
            try await withThrowingTaskGroup(of: Void.self) { tasks in
                tasks.addTask { try await linked.run() }
                defer { tasks.cancelAll() }
                let endpoint = try await eventually("the web app is subscribed", within: .seconds(120)) { await app.endpoint }
                #expect(endpoint == "\(server.cleartextURL)/push/\(app.subscriptionID.hex)")

                let declarative = try await Self.push(WebAppTests.declarative, to: endpoint, app: app, site: site)
                #expect(declarative.status == 201)
                let apnsID = try #require(declarative.apnsID)
                try await eventually("the declarative notification is shown", within: .seconds(120)) { await !app.notifications.isEmpty }
                try await eventually("its trace has decrypted and shown", within: .seconds(120)) {
                    let kinds = try await server.trace(of: apnsID).map(\.kind.rawValue)
                    return kinds.contains("decrypted") && kinds.contains("shown")
                }
                #expect(await app.notifications.first?.title == "Order shipped")

                for _ in 1...WebApp.maximumSilentPushes {
                    #expect(try await Self.push(#"{"title":"x"}"#, to: endpoint, app: app, site: site).status == 201)
                }
                try await eventually("the subscription is revoked", within: .seconds(120)) {
                    if case .revoked = await app.subscription { return true }
                    return false
                }
                // The device told the push service: the endpoint is gone.
                try await eventually("the endpoint answers 410", within: .seconds(120)) {
                    try await Self.push(#"{"title":"x"}"#, to: endpoint, app: app, site: site).status == 410
                }
            }
        }
        await app.stop()
    }
}
