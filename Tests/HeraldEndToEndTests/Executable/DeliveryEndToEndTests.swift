import Foundation
import HeraldCore
import HeraldDeviceLink
import HeraldTestSupport
import HeraldTestTiers
import Synchronization
import Testing

/// Tier 3 with real processes: `herald serve`, `herald devices add`, a `herald device`, and a provider (curl) —
/// a notification goes from the provider to the device, and every step shows in the trace.
@Suite("End to end: provider → herald serve → herald device", .serialized, .tier(.process))
struct DeliveryEndToEndTests {
    static let alert = #"{"aps":{"alert":{"title":"Hello","body":"from end to end"}},"order":42}"#

    @Test("curl posts; herald device prints and displays it; trace: accepted, sent, acknowledged, displayed; API: delivered")
    func deliveredToAConnectedDevice() async throws {
        try await HeraldWorkspace.with { workspace in
            let server = try await HeraldServeProcess.start(in: workspace)
            let credentials = try await workspace.addDevice("phone")
            let device = try await HeraldDeviceProcess.start(in: workspace, server: server, device: credentials)
            let token = try await device.token(for: HeraldWorkspace.topic)
            #expect(token.count == 64 && token.allSatisfy(\.isHexDigit), "\(token)")
            try await server.waitUntil(deviceID: credentials.id, isOnline: true)

            let answer = try await server.post(token: token, jwt: try await workspace.providerToken(), body: Self.alert)
            #expect(answer.version == "HTTP/2" && answer.status == 200, "\(answer)")
            let apnsID = try #require(answer.headers["apns-id"], "\(answer)")

            // The device prints the notification, byte for byte the provider's payload, then what it did with it.
            let printed = try await device.waitForNotification(apnsID)
            #expect(printed["token"] as? String == token, "\(printed)")
            #expect(printed["bundleID"] as? String == HeraldWorkspace.topic, "\(printed)")
            #expect(printed["pushType"] as? String == "alert" && printed["priority"] as? Int == 10, "\(printed)")
            #expect(printed["attempt"] as? Int == 1, "\(printed)")
            let payload = try #require(printed["payload"] as? [String: Any], "\(printed)")
            #expect(payload["order"] as? Int == 42, "\(printed)")
            #expect(((payload["aps"] as? [String: Any])?["alert"] as? [String: Any])?["title"] as? String == "Hello", "\(printed)")
            let displayed = try await device.waitForReport("displayed", about: apnsID)
            #expect(displayed["bundleID"] as? String == HeraldWorkspace.topic, "\(displayed)")

            // The trace, through the inspection API once the device's report is in, then through `herald trace`.
            let inspected = try await server.waitForNotification(apnsID, "displayed in the trace") { $0.kinds.contains("displayed") }
            #expect(inspected.state == "delivered", "\(inspected)")
            #expect(inspected.kinds == ["accepted", "sent", "acknowledged", "displayed"], "\(inspected)")
            #expect(inspected.detail(of: "sent")?["attempt"] as? Int == 1, "\(inspected)")
            #expect(inspected.detail(of: "sent")?["device"] as? String == credentials.id, "\(inspected)")
            #expect(inspected.detail(of: "acknowledged")?["device"] as? String == credentials.id, "\(inspected)")
            #expect(inspected.object["token"] as? String == token && inspected.object["topic"] as? String == HeraldWorkspace.topic)
            let traced = try #require(try await workspace.trace(apnsID))
            #expect(traced.apnsID?.lowercased() == apnsID.lowercased(), "\(traced)")
            #expect(traced.state == "delivered", "\(traced)")
            #expect(traced.kinds == ["accepted", "sent", "acknowledged", "displayed"], "\(traced)")
            let times = traced.events.compactMap { $0["at"] as? Int }
            #expect(times.count == 4 && times == times.sorted(), "\(traced)")

            // The device's notifications and its token, as the inspection API lists them.
            let listed = try await server.inspect("/api/v1/devices/\(credentials.id)/notifications")
            let notifications = try #require(listed.object?["notifications"] as? [[String: Any]], "\(listed)")
            #expect(notifications.map { ($0["apnsID"] as? String)?.lowercased() } == [apnsID.lowercased()], "\(listed)")
            #expect(notifications.first?["state"] as? String == "delivered", "\(listed)")
            let described = try await server.inspect("/api/v1/devices/\(credentials.id)")
            let tokens = try #require(described.object?["tokens"] as? [[String: Any]], "\(described)")
            #expect(tokens.map { $0["token"] as? String } == [token], "\(described)")
            #expect(device.printedIDs == [apnsID.lowercased()], "\(device.describe())")

            // A graceful stop still exits 0 with a device connected.
            let stopped = try await server.stop()
            #expect(stopped.status == 0 && !stopped.timedOut, "\(stopped)")
        }
    }

    @Test("unregister over the device link: waiting notifications are discarded, pushes get 410 at that time, a new register gets a new token")
    func unregisterOverTheLink() async throws {
        try await HeraldWorkspace.with { workspace in
            let server = try await HeraldServeProcess.start(in: workspace)
            let credentials = try await workspace.addDevice("tablet")
            var configuration = DeviceLinkClient.Configuration(host: "127.0.0.1", port: server.linkPort)
            configuration.requestTimeout = .seconds(30)
            let client = try await DeviceLinkClient.connect(configuration: configuration)
            let frames = ReceivedNotifications()
            try await withThrowingTaskGroup(of: Void.self) { group in
                // Collects the notification frames until the link closes (at the end of the test).
                group.addTask {
                    for await message in client.messages {
                        if case .notification(let notification) = message { frames.append(notification) }
                    }
                }
                do {
                    try await Self.unregister(client: client, frames: frames, server: server, credentials: credentials)
                } catch {
                    await client.close()
                    throw error
                }
                await client.close()
                try await group.waitForAll()
            }
        }
    }

    /// The body of ``unregisterOverTheLink()``, on an open link that the caller closes.
    static func unregister(
        client: DeviceLinkClient,
        frames: ReceivedNotifications,
        server: HeraldServeProcess,
        credentials: DeviceCredentials
    ) async throws {
        try await client.hello(.device(id: credentials.id, secret: credentials.secret))
        let registration = try await client.register(bundleID: HeraldWorkspace.topic, environment: .sandbox)
        #expect(registration.isNew)
        let token = registration.token.hex

        // Sent on the link and never acknowledged: outstanding when the app goes away.
        let outstanding = try await server.send(token: token, ["--alert", "not acknowledged"])
        let frame = try await frames.wait(for: outstanding)
        #expect(frame.token.hex == token && frame.attempt == 1)

        let unregistration = try await client.unregister(bundleID: HeraldWorkspace.topic, environment: .sandbox)
        #expect(unregistration.token.hex == token)
        let discarded = try await server.waitForNotification(outstanding, "discarded") { $0.state == "discarded" }
        #expect(discarded.kinds == ["accepted", "sent", "discarded"], "\(discarded)")
        #expect(discarded.detail(of: "discarded")?["reason"] as? String == "token-unregistered", "\(discarded)")

        // At once, for the provider: 410 with the time the link reported.
        let gone = try await server.post(token: token, jwt: try await server.workspace.providerToken(), body: Self.alert)
        #expect(gone.status == 410 && gone.reason == "Unregistered", "\(gone)")
        #expect(gone.timestamp == unregistration.unregisteredAtMilliseconds, "\(gone)")

        // Reinstalled: a new token, which works.
        let again = try await client.register(bundleID: HeraldWorkspace.topic, environment: .sandbox)
        #expect(again.isNew && again.token != registration.token)
        let delivered = try await server.send(token: again.token.hex, ["--alert", "after reinstall"])
        let next = try await frames.wait(for: delivered)
        #expect(next.token == again.token)
        client.acknowledge(next.apnsID)
        let acknowledged = try await server.waitForNotification(delivered, "delivered") { $0.state == "delivered" }
        #expect(acknowledged.kinds == ["accepted", "sent", "acknowledged"], "\(acknowledged)")
        #expect(frames.all.count == 2, "\(frames.all)")
    }
}

/// The notification frames a test's device-link client has received, in order.
final class ReceivedNotifications: Sendable {
    private let frames = Mutex<[DeviceLinkNotification]>([])

    func append(_ notification: DeviceLinkNotification) { frames.withLock { $0.append(notification) } }

    var all: [DeviceLinkNotification] { frames.withLock { $0 } }

    /// Waits until the frame of `apnsID` has arrived, and returns it.
    func wait(for apnsID: String) async throws -> DeviceLinkNotification {
        try await eventually("a notification frame \(apnsID)", within: .seconds(60), state: "\(all)") {
            all.first { $0.apnsID.text.lowercased() == apnsID.lowercased() }
        }
    }
}
