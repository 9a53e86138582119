import Foundation
import HeraldCore
import HeraldProviderClient
import HeraldStore
import HeraldTestTiers
import HeraldTesting
import Testing

/// Retention in a running server: finished notifications go after the retention time, waiting ones stay.
@Suite("Retention in a running server", .tier(.inProcess))
struct RetentionTests {
    static let app = "com.example.retention"

    /// Sends an alert and returns its `apns-id`, expecting `200`.
    static func send(_ title: String, to token: String, with client: APNSProviderClient) async throws -> String {
        let payload = Array(#"{"aps":{"alert":"\#(title)"}}"#.utf8)
        let response = try await client.send(APNSRequest(deviceToken: token, payload: payload, topic: app, pushType: .alert))
        #expect(response.status == 200, "reason: \(String(describing: response.reason))")
        return try #require(response.apnsID)
    }

    @Test("A delivered notification is pruned after 7 days; one waiting for an offline device is not")
    func prunesDeliveredKeepsStored() async throws {
        try await withHeraldServer { server in
            let retention = try #require(server.server.retention, "herald serve prunes by default")
            let device = try await server.addDevice(apps: [Self.app])
            let offline = try await server.offlineToken(for: Self.app)
            let client = try server.makeProviderClient(tls: false)
            let delivered: String
            let waiting: String
            do {
                delivered = try await Self.send("Delivered", to: device.token(for: Self.app), with: client)
                waiting = try await Self.send("Waiting", to: offline, with: client)
            } catch {
                await client.shutdown()
                throw error
            }
            await client.shutdown()
            _ = try await server.expectTrace(of: delivered, contains: .displayed, within: .seconds(5))
            await server.server.engine.waitUntilIdle()

            #expect(try await retention.prune() == 0, "nothing is older than 7 days yet")
            server.clock.advance(by: .seconds(7 * 24 * 3600 + 60))
            #expect(try await retention.prune() == 1)
            #expect(try await server.trace(of: delivered).isEmpty)
            let kept = try await server.trace(of: waiting)
            #expect(kept.first?.kind == .accepted)
            #expect(try await server.server.store.notification(try #require(NotificationID(waiting)))?.state == .stored)
        }
    }
}
