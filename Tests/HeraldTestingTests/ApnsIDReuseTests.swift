import Foundation
import HeraldCore
import HeraldProviderClient
import HeraldStore
import HeraldTestTiers
import HeraldTesting
import Testing

/// A provider that sends a second notification with an `apns-id` it already used (tier 3): APNs treats the
/// identifier as the provider's label, not as a key that deduplicates, so both notifications are delivered.
@Suite("Delivery: a reused apns-id", .tier(.inProcess))
struct ApnsIDReuseTests {
    static let app = "com.example.reuse"

    static func request(_ title: String, to token: String, apnsID: String) -> APNSRequest {
        APNSRequest(
            deviceToken: token,
            payload: Array(#"{"aps":{"alert":{"title":"\#(title)"}}}"#.utf8),
            topic: app,
            pushType: .alert,
            apnsID: apnsID
        )
    }

    @Test("after the first is delivered, the second with the same apns-id is delivered too; the trace keeps both")
    func reusedAfterDelivery() async throws {
        try await withHeraldServer { server in
            let device = try await server.addDevice(apps: [Self.app])
            try await server.withProviderClient { client in
                let apnsID = NotificationID.random().text
                let token = try device.token(for: Self.app)
                #expect(try await client.send(Self.request("First", to: token, apnsID: apnsID)).status == 200)
                _ = try await device.expectNotification(titled: "First", in: Self.app, within: .seconds(10))
                try await server.expectState(of: apnsID, is: .delivered, within: .seconds(10))
                #expect(try await client.send(Self.request("Second", to: token, apnsID: apnsID)).status == 200)
                _ = try await device.expectNotification(titled: "Second", in: Self.app, within: .seconds(10))
                try await server.expectState(of: apnsID, is: .delivered, within: .seconds(10))
                let trace = try await server.expectTrace(of: apnsID, within: .seconds(10), "to hold both displays") { events in
                    events.filter { $0.kind == .displayed }.count == 2
                }
                #expect(trace.filter { $0.kind == .accepted }.count == 2, "\(trace.map(\.kind))")
                #expect(trace.contains { $0.kind == .dropped } == false, "\(trace.map(\.kind))")
            }
        }
    }
}
