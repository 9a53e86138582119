import Foundation
import HeraldCore
import HeraldDeviceLink
import HeraldSimulator
import HeraldTestTiers
import Synchronization
import Testing

@testable import HeraldDeviceHost

/// A linked device's web apps without a server: subscribed through a stand-in for the device link, found by their
/// subscription's token, unsubscribed when revoked, and on the device's screen.
@Suite("Linked device's web apps: subscribe, route by token, revoke, screen", .tier(.process))
struct LinkedDeviceWebAppTests {
    /// The device link's web push requests, recorded.
    final class Subscriber: WebPushSubscriber {
        let subscribed = Mutex<[DeviceToken]>([])
        let unsubscribed = Mutex<[DeviceToken]>([])
        let refuse: Bool

        init(refuse: Bool = false) {
            self.refuse = refuse
        }

        func subscribeWebPush(origin: String, applicationServerKey: String, token: DeviceToken) async throws -> DeviceLinkWebPushSubscription {
            if refuse { throw DeviceLinkError(code: .invalidOrigin, message: "refused") }
            subscribed.withLock { $0.append(token) }
            return DeviceLinkWebPushSubscription(id: nil, token: token, endpoint: "http://127.0.0.1:2197/push/\(token.hex)", isNew: true)
        }

        func unsubscribeWebPush(token: DeviceToken) async throws {
            unsubscribed.withLock { $0.append(token) }
        }
    }

    /// The events a linked device told, in order.
    final class Events: Sendable {
        private let events = Mutex<[LinkedDeviceEvent]>([])

        func append(_ event: LinkedDeviceEvent) { events.withLock { $0.append(event) } }

        var all: [LinkedDeviceEvent] { events.withLock { $0 } }
    }

    static func linked(_ apps: [WebApp], events: Events) async throws -> LinkedDevice {
        let configuration = LinkedDevice.Configuration(link: DeviceLinkClient.Configuration(host: "127.0.0.1", port: 9), hello: .enrol(name: "mac"))
        return LinkedDevice(
            device: try await SimulatedDevice(manifest: DeviceManifest(name: "mac", apps: [])),
            configuration: configuration,
            webApps: apps
        ) { event in events.append(event) }
    }

    @Test("each web app is subscribed with its token and told with its toJSON; a refusal is a server error")
    func subscribes() async throws {
        let site = try WebAppFixture()
        let app = try site.webApp()
        let events = Events()
        let linked = try await Self.linked([app], events: events)
        let subscriber = Subscriber()
        try await linked.subscribeWebApps(with: subscriber)
        #expect(subscriber.subscribed.withLock { $0 } == [app.subscriptionID])
        #expect(await app.endpoint == "http://127.0.0.1:2197/push/\(app.subscriptionID.hex)")
        let told = events.all.compactMap { event -> String? in
            if case .webPushSubscribed(_, let subscription) = event { return subscription }
            return nil
        }
        #expect(told == [await app.toJSON()])
        #expect(linked.webApp(for: app.subscriptionID) === app)
        #expect(linked.webApp(for: DeviceToken.random()) == nil)

        let refused = try await Self.linked([try site.webApp()], events: events)
        try await refused.subscribeWebApps(with: Subscriber(refuse: true))
        #expect(events.all.contains { if case .serverError = $0 { true } else { false } })
    }

    @Test("the silent push that revokes a subscription unsubscribes it, and it is not subscribed again")
    func revocationUnsubscribes() async throws {
        let site = try WebAppFixture()
        let app = try site.webApp(example: "silent-sw.js")
        let events = Events()
        let linked = try await Self.linked([app], events: events)
        let subscriber = Subscriber()
        try await linked.subscribeWebApps(with: subscriber)
        for _ in 1...WebApp.maximumSilentPushes {
            _ = await linked.deliver(try site.message(#"{"title":"x"}"#, to: app), to: app, subscriber: subscriber)
        }
        await app.stop()
        #expect(subscriber.unsubscribed.withLock { $0 } == [app.subscriptionID])
        #expect(events.all.contains { if case .webPushRevoked = $0 { true } else { false } })
        try await linked.subscribeWebApps(with: subscriber)
        #expect(subscriber.subscribed.withLock { $0 }.count == 1)
    }

    @Test("the screen has the web apps beside the snapshot: notifications, badge, subscription")
    func screen() async throws {
        let site = try WebAppFixture()
        let app = try site.webApp()
        await app.subscribed(endpoint: "http://127.0.0.1:2197/push/\(app.subscriptionID.hex)")
        _ = await app.receive(try site.message(WebAppTests.declarative, to: app))
        let device = try await SimulatedDevice(manifest: DeviceManifest(name: "mac", apps: []))
        let encoder = JSONEncoder()
        encoder.dateEncodingStrategy = .secondsSince1970
        let json = try #require(ScreenSender.screenJSON(await device.snapshot(), encoder: encoder, webApps: [await app.screen()]))
        let screen = try #require(try JSONParser.parse(Array(json)).objectValue)
        #expect(screen["name"] == "mac")
        let web = try #require(screen["webApps"]?.arrayValue?.first?.objectValue)
        #expect(web["origin"] == "https://shop.example" && web["state"] == "subscribed" && web["badge"] == 3)
        #expect(web["notifications"]?.arrayValue?.first?.objectValue?["title"] == "Order shipped")
        // The device's snapshot still decodes from it (what the console and the testing kit read).
        #expect(try JSONDecoder.screen.decode(DeviceSnapshot.self, from: json).name == "mac")
    }
}

extension JSONDecoder {
    /// A decoder for a screen's JSON (dates in seconds since 1970).
    fileprivate static var screen: JSONDecoder {
        let decoder = JSONDecoder()
        decoder.dateDecodingStrategy = .secondsSince1970
        return decoder
    }
}
