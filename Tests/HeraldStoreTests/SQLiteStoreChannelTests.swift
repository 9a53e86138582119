import Foundation
import HeraldCore
import HeraldStore
import HeraldTestTiers
import Testing

@Suite("Store: broadcast channels", .tier(.unit))
struct SQLiteStoreChannelTests {
    @Test("per app and environment, up to the limit; read, list oldest first, delete")
    func channels() async throws {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("herald-channels-\(UUID().uuidString)")
        defer { try? FileManager.default.removeItem(at: directory) }
        let clock = ManualWallClock()
        let store = try SQLiteStore(configuration: .init(dataDirectory: directory.path), clock: clock)
        let first = try #require(
            try await store.createChannel(bundleID: "a.b", environment: .sandbox, storagePolicy: 1, pushType: "LiveActivity", limit: 2)
        )
        clock.advance(seconds: 1)
        let second = try #require(
            try await store.createChannel(bundleID: "a.b", environment: .sandbox, storagePolicy: 0, pushType: "LiveActivity", limit: 2)
        )
        #expect(first.id != second.id)
        #expect(try await store.createChannel(bundleID: "a.b", environment: .sandbox, storagePolicy: 0, pushType: "LiveActivity", limit: 2) == nil)
        // Another environment, another app: their own counts.
        let production = try #require(
            try await store.createChannel(bundleID: "a.b", environment: .production, storagePolicy: 0, pushType: "LiveActivity", limit: 2)
        )
        #expect(try await store.channel(id: production.id, bundleID: "a.b", environment: .sandbox) == nil)
        #expect(try await store.channel(id: first.id, bundleID: "other.app", environment: .sandbox) == nil)
        #expect(try await store.channel(id: first.id, bundleID: "a.b", environment: .sandbox) == first)
        #expect(try await store.channels(bundleID: "a.b", environment: .sandbox).map(\.id) == [first.id, second.id])
        #expect(try await store.deleteChannel(id: first.id, bundleID: "a.b", environment: .sandbox))
        #expect(try await !store.deleteChannel(id: first.id, bundleID: "a.b", environment: .sandbox))
        #expect(try await store.channels(bundleID: "a.b", environment: .sandbox).map(\.id) == [second.id])
        await store.shutdown()
        // Durable: a store opened again has them.
        let reopened = try SQLiteStore(configuration: .init(dataDirectory: directory.path), clock: clock)
        #expect(try await reopened.channel(id: second.id, bundleID: "a.b", environment: .sandbox)?.storagePolicy == 0)
        await reopened.shutdown()
    }
}
