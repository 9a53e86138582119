import HeraldCore
import HeraldDeviceLink
import HeraldStore
import HeraldTestSupport
import HeraldTestTiers
import Testing

@testable import HeraldDelivery
@testable import HeraldWeb

@Suite("Device link: web push subscriptions and web app reports on a live server", .tier(.inProcess))
struct DeviceLinkWebPushTests {
    /// RFC 8292 §3.2's example key.
    static let key = "BA1Hxzyi1RUM1b5wjxsn7nGxAszw2u61m164i3MrAIxHF6YK5h4SDYic-dRuU_RCPCfA5aq9ojSwk5Y2EmClBPs"
    static let origin = "https://shop.example"

    /// The web port with a push service on `http://…:8080`.
    static var configuration: WebConfiguration {
        var configuration = WebConfiguration()
        configuration.webPush.providerPort = { WebPushEndpoints.ProviderPort(scheme: "http", port: 8080) }
        return configuration
    }

    /// The error a request gets from the server, or `nil` when it succeeded.
    private func refusal(_ request: () async throws -> Void) async -> DeviceLinkError? {
        do {
            try await request()
            return nil
        } catch let error as DeviceLinkError {
            return error
        } catch {
            Issue.record("not a DeviceLinkError: \(error)")
            return nil
        }
    }

    private func record(_ token: DeviceToken, _ fixture: LinkServerFixture, deviceID: String) async throws -> TokenRecord? {
        try await fixture.registry.tokens(deviceID: deviceID).first { $0.token == token }
    }

    @Test("a subscription is registered as a web-push token of the origin and key, and answered with its endpoint; again, it is not new")
    func subscribe() async throws {
        try await LinkServerFixture.with(configuration: Self.configuration) { fixture in
            let credentials = try await fixture.addDevice(name: "mac")
            let client = try await fixture.connect(as: credentials)
            let token = DeviceToken.random()
            let subscription = try await client.subscribeWebPush(origin: "HTTPS://Shop.Example:443", applicationServerKey: Self.key, token: token)
            #expect(subscription.token == token)
            #expect(subscription.isNew)
            // The device reached the link at 127.0.0.1 (its Host header): the endpoint names the same host.
            #expect(subscription.endpoint == "http://127.0.0.1:8080/push/\(token.hex)")

            let record = try #require(try await record(token, fixture, deviceID: credentials.device.id))
            #expect(record.kind == .webPush)
            #expect(record.bundleID == Self.origin)
            #expect(record.environment == .production)
            #expect(record.activityType == Self.key)
            #expect(record.isActive)
            let registered = try await fixture.engineInput { if case .tokenRegistered(token, _) = $0 { true } else { false } }
            guard case .tokenRegistered = registered else { throw Unexpected() }

            let again = try await client.subscribeWebPush(origin: Self.origin, applicationServerKey: Self.key, token: token)
            #expect(again == DeviceLinkWebPushSubscription(id: again.id, token: token, endpoint: subscription.endpoint, isNew: false))
            await client.close()
        }
    }

    @Test("a bad origin, key or token, another device's subscription id and an unknown unsubscription are refused; nothing is registered")
    func refusals() async throws {
        try await LinkServerFixture.with(configuration: Self.configuration) { fixture in
            let mac = try await fixture.addDevice(name: "mac")
            let client = try await fixture.connect(as: mac)
            let token = DeviceToken.random()
            let badOrigin = await refusal {
                _ = try await client.subscribeWebPush(origin: "https://shop.example/app", applicationServerKey: Self.key, token: token)
            }
            #expect(badOrigin?.code == .invalidOrigin)
            let badKey = await refusal { _ = try await client.subscribeWebPush(origin: Self.origin, applicationServerKey: "BA1Hxzyi", token: token) }
            #expect(badKey?.code == .invalidApplicationServerKey)
            let shortToken =
                #"{"type":"web-push-subscribe","id":"t","origin":"\#(Self.origin)","applicationServerKey":"\#(Self.key)","token":"0123"}"#
            try await client.sendRawText(Array(shortToken.utf8))
            guard case .error(let badToken) = try await client.nextMessage() else { throw Unexpected() }
            #expect(badToken.code == .invalidToken)
            #expect(badToken.id == "t")
            #expect(try await fixture.registry.tokens(deviceID: mac.device.id).isEmpty)

            let unknown = await refusal { try await client.unsubscribeWebPush(token: token) }
            #expect(unknown?.code == .notRegistered)
            // An app's device token is not a subscription: `unregister` stops it, not `web-push-unsubscribe`.
            let app = try await client.register(bundleID: "com.example.app", environment: .sandbox)
            let notSubscription = await refusal { try await client.unsubscribeWebPush(token: app.token) }
            #expect(notSubscription?.code == .notRegistered)

            let phone = try await fixture.addDevice(name: "phone")
            let other = try await fixture.connect(as: phone)
            _ = try await other.subscribeWebPush(origin: Self.origin, applicationServerKey: Self.key, token: token)
            let taken = await refusal { _ = try await client.subscribeWebPush(origin: Self.origin, applicationServerKey: Self.key, token: token) }
            #expect(taken?.code == .tokenTaken)
            #expect(try await record(token, fixture, deviceID: phone.device.id)?.isActive == true)
            await client.close()
            await other.close()
        }
    }

    @Test("unsubscribing retires the subscription at the server's time and tells the engine; its id cannot be used again")
    func unsubscribe() async throws {
        try await LinkServerFixture.with(configuration: Self.configuration) { fixture in
            let credentials = try await fixture.addDevice(name: "mac")
            let client = try await fixture.connect(as: credentials)
            let token = DeviceToken.random()
            _ = try await client.subscribeWebPush(origin: Self.origin, applicationServerKey: Self.key, token: token)
            fixture.clock.advance(seconds: 5)
            let now = fixture.clock.nowMilliseconds()
            try await client.unsubscribeWebPush(token: token)

            let record = try #require(try await record(token, fixture, deviceID: credentials.device.id))
            #expect(!record.isActive)
            #expect(record.unregisteredAtMilliseconds == now)
            let retired = try await fixture.engineInput { if case .tokenUnregistered(token, _) = $0 { true } else { false } }
            guard case .tokenUnregistered(_, let at) = retired else { throw Unexpected() }
            #expect(at == now)

            let again = await refusal { try await client.unsubscribeWebPush(token: token) }
            #expect(again?.code == .notRegistered)
            let reused = await refusal { _ = try await client.subscribeWebPush(origin: Self.origin, applicationServerKey: Self.key, token: token) }
            #expect(reused?.code == .tokenTaken)
            await client.close()
        }
    }

    @Test("a second subscription of the device for the same origin and key replaces the first; another key does not")
    func resubscribeReplaces() async throws {
        try await LinkServerFixture.with(configuration: Self.configuration) { fixture in
            let credentials = try await fixture.addDevice(name: "mac")
            let client = try await fixture.connect(as: credentials)
            let first = DeviceToken.random()
            let second = DeviceToken.random()
            let otherKey = DeviceToken.random()
            _ = try await client.subscribeWebPush(origin: Self.origin, applicationServerKey: Self.key, token: first)
            _ = try await client.subscribeWebPush(origin: Self.origin, applicationServerKey: Self.key, token: second)
            let key2 = "BCVxsr7N_eNgVRqvHtD0zTZsEc6-VV-JvLexhqUzORcxaOzi6-AYWXvTBHm4bjyPjs7Vd8pZGH6SRpkNtoIAiw4"
            _ = try await client.subscribeWebPush(origin: Self.origin, applicationServerKey: key2, token: otherKey)
            #expect(try await record(first, fixture, deviceID: credentials.device.id)?.isActive == false)
            #expect(try await record(second, fixture, deviceID: credentials.device.id)?.isActive == true)
            #expect(try await record(otherKey, fixture, deviceID: credentials.device.id)?.isActive == true)
            // The engine hears that the first ended, as for an unsubscription: what waits for it is dropped at once.
            let ended = try await fixture.engineInput { if case .tokenUnregistered(first, _) = $0 { true } else { false } }
            guard case .tokenUnregistered(_, let at) = ended else { throw Unexpected() }
            #expect(at == fixture.clock.nowMilliseconds())
            await client.close()
        }
    }

    @Test("with an origin of its own, the endpoint is that origin whatever host the device used")
    func originOverride() async throws {
        var configuration = Self.configuration
        configuration.webPush.origin = "https://push.example"
        try await LinkServerFixture.with(configuration: configuration) { fixture in
            let client = try await fixture.connect(as: try await fixture.addDevice())
            let token = DeviceToken.random()
            let subscription = try await client.subscribeWebPush(origin: Self.origin, applicationServerKey: Self.key, token: token)
            #expect(subscription.endpoint == "https://push.example/push/\(token.hex)")
            await client.close()
        }
    }

    @Test("with no provider port listening, a subscription gets internal and is not registered")
    func noPushService() async throws {
        var configuration = WebConfiguration()
        configuration.webPush.providerPort = { nil }
        try await LinkServerFixture.with(configuration: configuration) { fixture in
            let credentials = try await fixture.addDevice()
            let client = try await fixture.connect(as: credentials)
            let refused = await refusal {
                _ = try await client.subscribeWebPush(origin: Self.origin, applicationServerKey: Self.key, token: .random())
            }
            #expect(refused?.code == .internal)
            #expect(try await fixture.registry.tokens(deviceID: credentials.device.id).isEmpty)
            await client.close()
        }
    }

    @Test("a web push message goes to the subscribing device; its decrypted and shown reports land in the trace")
    func reportsInTrace() async throws {
        try await LinkServerFixture.with(configuration: Self.configuration, runsEngine: true) { fixture in
            let credentials = try await fixture.addDevice(name: "mac")
            let client = try await fixture.connect(as: credentials)
            let token = DeviceToken.random()
            _ = try await client.subscribeWebPush(origin: Self.origin, applicationServerKey: Self.key, token: token)
            // As the push service stores a message (docs/web-push.md): the origin is the bundle id and the topic.
            let notification = AcceptedNotification.fixture(
                token: token,
                topic: Self.origin,
                bundleID: Self.origin,
                environment: .production,
                pushType: .webPush,
                priority: .powerConsiderate,
                acceptedAt: fixture.clock.nowMilliseconds(),
                payload: #"{"web_push_message":{"encoding":"aes128gcm","body":"AAAA","urgency":"normal","ttl":3600}}"#
            )
            try await fixture.store.accept(notification)
            fixture.engine.accepted(notification)

            let message = try await client.nextMessage()
            guard case .notification(let received) = message else { throw Unexpected() }
            #expect(received.apnsID == notification.id)
            #expect(received.pushType == .webPush)
            #expect(received.bundleID == Self.origin)
            client.acknowledge(received.apnsID)
            client.report(DeviceLinkReport(apnsID: received.apnsID, event: .decrypted))
            client.report(DeviceLinkReport(apnsID: received.apnsID, event: .shown, detail: Array(#"{"title":"Order shipped","tag":"o1"}"#.utf8)))
            try await settle(client, fixture)

            let trace = try await fixture.store.trace(notification.id)
            #expect(trace.map(\.kind) == [.accepted, .sent, .acknowledged, .decrypted, .shown])
            #expect(trace.last?.detailJSON == #"{"device":"\#(credentials.device.id)","title":"Order shipped","tag":"o1"}"#)
            await client.close()
        }
    }

    @Test("a not-shown report with its reason lands in the trace")
    func notShownInTrace() async throws {
        try await LinkServerFixture.with(configuration: Self.configuration, runsEngine: true) { fixture in
            let credentials = try await fixture.addDevice(name: "mac")
            let client = try await fixture.connect(as: credentials)
            let token = DeviceToken.random()
            _ = try await client.subscribeWebPush(origin: Self.origin, applicationServerKey: Self.key, token: token)
            let notification = AcceptedNotification.fixture(
                token: token,
                topic: Self.origin,
                bundleID: Self.origin,
                environment: .production,
                pushType: .webPush,
                acceptedAt: fixture.clock.nowMilliseconds(),
                payload: #"{"web_push_message":{"encoding":"aes128gcm","body":"AAAA","urgency":"high","ttl":60}}"#
            )
            try await fixture.store.accept(notification)
            fixture.engine.accepted(notification)
            guard case .notification(let received) = try await client.nextMessage() else { throw Unexpected() }
            client.acknowledge(received.apnsID)
            let reason = #"{"reason":"the service worker showed no notification"}"#
            client.report(DeviceLinkReport(apnsID: received.apnsID, event: .notShown, detail: Array(reason.utf8)))
            try await settle(client, fixture)
            let trace = try await fixture.store.trace(notification.id)
            #expect(trace.map(\.kind) == [.accepted, .sent, .acknowledged, .notShown])
            #expect(trace.last?.detailJSON == #"{"device":"\#(credentials.device.id)","reason":"the service worker showed no notification"}"#)
            await client.close()
        }
    }

    /// Waits until the server handled everything the client sent before and the engine processed and wrote it: the
    /// error for a frame of an unknown type comes after the answers to every frame before it.
    private func settle(_ client: DeviceLinkClient, _ fixture: LinkServerFixture) async throws {
        try await client.sendRawText(Array(#"{"type":"settled?","id":"settle"}"#.utf8))
        guard case .error(let error) = try await client.nextMessage(), error.id == "settle" else { throw Unexpected() }
        await fixture.engine.waitUntilIdle()
    }

    struct Unexpected: Error {}
}
