import Foundation
import HeraldCore
import HeraldDeviceLink
import HeraldGateway
import HeraldProviderClient
import HeraldSimulator
import HeraldStore
import HeraldTestSupport
import HeraldTestTiers
import HeraldTesting
import HeraldUserNotifications
import Testing

/// Fault rules' device-side effects (docs/faults.md) through a real server and a simulated device: the provider's
/// request is answered 200 and stored; the device side misbehaves. Times that matter run on the server's test clock,
/// never on sleeps.
@Suite("Fault rules end to end: deviceOffline, ackDelayMs, extensionTimeout", .serialized, .tier(.inProcess))
struct DeviceFaultTests {
    static let app = "com.example.faults"

    static func add(_ rule: String, to server: HeraldTestServer) throws {
        try server.faults.add(FaultRule(json: Array(rule.utf8)))
    }

    static func push(
        _ title: String,
        to token: String,
        with client: APNSProviderClient,
        payload: String? = nil,
        topic: String = app
    ) async throws
        -> String
    {
        let body = payload ?? #"{"aps":{"alert":{"title":"\#(title)","body":"Hi"}}}"#
        let response = try await client.send(APNSRequest(deviceToken: token, payload: Array(body.utf8), topic: topic, pushType: .alert))
        try #require(response.status == 200, "the gateway refused the push: \(String(describing: response.reason))")
        return try #require(response.apnsID)
    }

    @Test("deviceOffline: the device's link closes, the notification waits stored, and it is delivered once the window ends")
    func deviceOffline() async throws {
        try await withHeraldServer(HeraldTestServer.Options.cleartextOnly) { server in
            let device = try await server.addDevice(apps: [Self.app])
            // Ten minutes of server time: only the clock's jump below ends it.
            try Self.add(#"{"id": "tunnel", "match": {"topic": "\#(Self.app)"}, "deviceOffline": true, "forMs": 600000, "count": 1}"#, to: server)
            try await server.withProviderClient(tls: false) { client in
                let apnsID = try await Self.push("Through the tunnel", to: device.token(for: Self.app), with: client)
                let stored = try await server.expectTraceEvent(.stored, of: apnsID)
                #expect(stored.detail["reason"] == .string("device-offline"))
                #expect(stored.detail["fault"] == .string("tunnel"))
                #expect(try await server.state(of: apnsID) == .stored)
                // The device tries again (every second at most in the kit) and is refused each time.
                try await eventually("the device's link closed") { !device.linked.isConnected }
                try await expectNothing(for: .milliseconds(1500), "the refused device linked again") { device.linked.isConnected }
                #expect(try await server.state(of: apnsID) == .stored)
                #expect(await device.notifications(in: Self.app).isEmpty)

                server.clock.advance(by: .seconds(601))
                try await server.expectState(of: apnsID, is: .delivered, within: .seconds(15))
                _ = try await device.expectNotification(titled: "Through the tunnel", in: Self.app, within: .seconds(10))
                #expect(server.faults.entries.map(\.failed) == [1])
            }
        }
    }

    /// A device that never connected, a push to it that a `deviceOffline` rule of `forMs` applies to (stored), and
    /// what the test needs to connect as the device over a raw link.
    private static func offlineDevice(
        _ server: HeraldTestServer,
        named name: String,
        forMs: Int
    ) async throws -> (apnsID: String, link: DeviceLinkClient.Configuration, hello: DeviceLinkHello) {
        let credentials = try await server.server.store.addDevice(name: name)
        let token = try await server.server.store.registerToken(bundleID: Self.app, environment: .sandbox, deviceID: credentials.device.id)
        try Self.add(#"{"id": "off", "deviceOffline": true, "forMs": \#(forMs)}"#, to: server)
        let apnsID = try await server.withProviderClient(tls: false) { client in
            try await Self.push("Later", to: token.hex, with: client)
        }
        try await server.expectState(of: apnsID, is: .stored)
        var link = DeviceLinkClient.Configuration(host: "127.0.0.1", port: Int(URL(string: server.deviceLinkURL)!.port!))
        link.path = "/device-link"
        return (apnsID, link, DeviceLinkHello.device(id: credentials.device.id, secret: credentials.secret))
    }

    @Test("deviceOffline for a device that is not connected: its hello is refused with device-offline until the window ends")
    func deviceOfflineRefusesHello() async throws {
        try await withHeraldServer(HeraldTestServer.Options.cleartextOnly) { server in
            let (apnsID, configuration, hello) = try await Self.offlineDevice(server, named: "Switched-off phone", forMs: 60_000)
            let refused = try await DeviceLinkClient.connect(configuration: configuration)
            let error = await #expect(throws: DeviceLinkError.self) { try await refused.hello(hello) }
            #expect(error?.code == .deviceOffline)
            #expect(error?.message.contains("'off'") == true)
            #expect((1...60_000).contains(error?.retryAfterMilliseconds ?? 0))
            let closure = await refused.closed()
            #expect(closure.code == 1013)

            server.clock.advance(by: .seconds(61))
            let client = try await DeviceLinkClient.connect(configuration: configuration)
            _ = try await client.hello(hello)
            var received: DeviceLinkNotification?
            for await message in client.messages {
                if case .notification(let notification) = message {
                    received = notification
                    break
                }
            }
            #expect(received?.apnsID.text.lowercased() == apnsID.lowercased())
            await client.close()
        }
    }

    @Test("a reset ends a deviceOffline window: the device's hello is taken at once, and the held notification is gone")
    func resetEndsOfflineWindow() async throws {
        try await withHeraldServer(HeraldTestServer.Options.cleartextOnly) { server in
            let (apnsID, configuration, hello) = try await Self.offlineDevice(server, named: "Phone after a reset", forMs: 600_000)
            let refused = try await DeviceLinkClient.connect(configuration: configuration)
            let error = await #expect(throws: DeviceLinkError.self) { try await refused.hello(hello) }
            #expect(error?.code == .deviceOffline)

            let result = try await server.reset()
            #expect(result.discarded == 1 && result.faultsRemoved == 1)
            // No clock advance: the window is over because of the reset.
            let client = try await DeviceLinkClient.connect(configuration: configuration)
            _ = try await client.hello(hello)
            #expect(try await server.state(of: apnsID) == nil)
            await client.close()
        }
    }

    @Test("ackDelayMs: the device's ack is held, the notification stays sent, then it is delivered")
    func acknowledgementDelay() async throws {
        try await withHeraldServer(HeraldTestServer.Options.cleartextOnly) { server in
            let device = try await server.addDevice(apps: [Self.app])
            try Self.add(#"{"id": "slow-ack", "ackDelayMs": 600000}"#, to: server)
            try await server.withProviderClient(tls: false) { client in
                let apnsID = try await Self.push("Held ack", to: device.token(for: Self.app), with: client)
                // The device has it and shows it: it acked on receipt, and its report is in the trace.
                _ = try await device.expectNotification(titled: "Held ack", in: Self.app, within: .seconds(10))
                _ = try await server.expectTraceEvent(.displayed, of: apnsID, within: .seconds(10))
                try await expectNothing(for: .milliseconds(300), "the held ack recorded") {
                    try await server.trace(of: apnsID).contains { $0.kind == .acknowledged }
                }
                // Sent and not delivered: still `stored` in the store, with `sent` and no `acknowledged` in the trace.
                #expect(try await server.state(of: apnsID) == .stored)
                let kinds = try await server.trace(of: apnsID).map(\.kind)
                #expect(kinds.contains(.sent))
                #expect(!kinds.contains(.acknowledged))

                server.clock.advance(by: .seconds(600))
                try await server.expectState(of: apnsID, is: .delivered, within: .seconds(10))
                let acknowledged = try await server.expectTraceEvent(.acknowledged, of: apnsID)
                #expect(acknowledged.detail["fault"] == .string("slow-ack"))
                #expect((acknowledged.detail["heldMs"]?.intValue ?? 0) >= 600_000)
            }
        }
    }

    @Test("extensionTimeout: serviceExtensionTimeWillExpire() is called and the fallback is shown; without mutable-content nothing changes")
    func extensionTimeout() async throws {
        let manifest = Seed000.manifest(name: "Messages phone", bestAttemptOnExpiry: false)
        try await withHeraldServer(HeraldTestServer.Options.cleartextOnly) { server in
            let phone = try await server.addDevice(manifest: DeviceManifest(json: Data(manifest.utf8)))
            try Self.add(#"{"id": "slow-extension", "match": {"topic": "\#(Seed000.bundleID)"}, "extensionTimeout": true, "count": 2}"#, to: server)
            try await server.withProviderClient(tls: false) { client in
                let token = try await phone.token(for: Seed000.bundleID)
                let apnsID = try await Self.push("", to: token, with: client, payload: Seed000.message, topic: Seed000.bundleID)
                // The original content (the extension handed nothing over in time), not the rewritten "Alice".
                let shown = try await phone.expectNotification(titled: "New message", in: Seed000.bundleID, within: .seconds(10))
                #expect(shown.body == "Lunch at noon?")
                let modified = try await phone.expectReport(.modified, for: apnsID)
                #expect(modified.string("outcome") == "expiredShowingOriginal")
                #expect(modified.detail["timeWillExpire"] == .bool(true))
                let calls = try await phone.callbacks(in: Seed000.bundleID)
                #expect(calls.suffix(2) == [.serviceExtensionDidReceive, .serviceExtensionTimeWillExpire])
                try await server.expectState(of: apnsID, is: .delivered, within: .seconds(10))

                // No mutable-content: no extension runs, so the rule has nothing to cut short.
                let plain = #"{"aps":{"alert":{"title":"Plain","body":"No extension"}}}"#
                let plainID = try await Self.push("", to: token, with: client, payload: plain, topic: Seed000.bundleID)
                _ = try await phone.expectNotification(titled: "Plain", in: Seed000.bundleID, within: .seconds(10))
                #expect(try await phone.callbacks(in: Seed000.bundleID).filter { $0 == .serviceExtensionTimeWillExpire }.count == 1)
                try await server.expectState(of: plainID, is: .delivered, within: .seconds(10))

                // The rule is spent: the extension runs as usual again.
                _ = try await Self.push("", to: token, with: client, payload: Seed000.message, topic: Seed000.bundleID)
                _ = try await phone.expectNotification(titled: "Alice", in: Seed000.bundleID, within: .seconds(10))
                #expect(server.faults.entries.map(\.failed) == [2])
            }
        }
    }
}
