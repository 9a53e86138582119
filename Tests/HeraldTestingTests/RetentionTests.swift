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
    @Test("A delivered notification is pruned after 7 days; one waiting for an offline device is not")
    func prunesDeliveredKeepsStored() async throws {
        try await withHeraldServer { server in
            let retention = try #require(server.server.retention, "herald serve prunes by default")
            let device = try await server.addDevice(apps: [HeraldTestServerTests.app])
            let offline = try await server.offlineToken(for: HeraldTestServerTests.app)
            let client = try server.makeProviderClient(tls: false)
            let delivered: String
            let waiting: String
            do {
                delivered = try await HeraldTestServerTests.send("Delivered", to: device.token(for: HeraldTestServerTests.app), with: client)
                waiting = try await HeraldTestServerTests.send("Waiting", to: offline, with: client)
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
