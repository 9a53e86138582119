import Foundation
import HeraldCore
import HeraldStore
import HeraldTestTiers
import Testing

@Suite("Store: broadcast channels", .tier(.process))
struct SQLiteStoreChannelTests {
    @Test("per app and environment, up to the limit; read, list oldest first, delete", arguments: StoreBackend.allCases)
    func channels(_ backend: StoreBackend) async throws {
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

    @Test("a channel keeps its most recent broadcast durably; expiration 0 forgets it; it goes with its channel", arguments: StoreBackend.allCases)
    func keptMessage(_ backend: StoreBackend) async throws {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("herald-channels-\(UUID().uuidString)")
        defer { try? FileManager.default.removeItem(at: directory) }
        let clock = ManualWallClock()
        let store = try SQLiteStore(configuration: .init(dataDirectory: directory.path), clock: clock)
        let channel = try #require(
            try await store.createChannel(bundleID: "a.b", environment: .sandbox, storagePolicy: 1, pushType: "LiveActivity", limit: 10)
        )
        func message(_ requestID: String, expiration: Int64) -> ChannelMessage {
            ChannelMessage(
                channelID: channel.id,
                bundleID: "a.b",
                environment: .sandbox,
                requestID: requestID,
                priority: 5,
                expiration: expiration,
                acceptedAtMilliseconds: 1_000,
                payload: Array(#"{"aps":{"event":"update","timestamp":1,"content-state":{"n":1}}}"#.utf8)
            )
        }
        #expect(try await store.channel(id: channel.id, bundleID: "a.b", environment: .sandbox)?.keptMessage == nil)
        #expect(try await store.keepChannelMessage(message("first", expiration: 100), untilMilliseconds: 100_000))
        #expect(try await store.keepChannelMessage(message("second", expiration: 200), untilMilliseconds: 200_000))
        let kept = try #require(try await store.channel(id: channel.id, bundleID: "a.b", environment: .sandbox)?.keptMessage)
        #expect(kept == KeptChannelMessage(message: message("second", expiration: 200), untilMilliseconds: 200_000))
        let record = try #require(try await store.channel(id: channel.id, bundleID: "a.b", environment: .sandbox))
        #expect(record.keptMessage(atMilliseconds: 199_999)?.requestID == "second")
        #expect(record.keptMessage(atMilliseconds: 200_000) == nil)
        // Another app's channel of the same id is not this one.
        var foreign = message("foreign", expiration: 1)
        foreign.bundleID = "other.app"
        #expect(try await !store.keepChannelMessage(foreign, untilMilliseconds: 1_000))
        await store.shutdown()

        let reopened = try SQLiteStore(configuration: .init(dataDirectory: directory.path), clock: clock)
        #expect(try await reopened.channel(id: channel.id, bundleID: "a.b", environment: .sandbox)?.keptMessage?.message.requestID == "second")
        // A broadcast with expiration 0 supersedes it and is not kept.
        #expect(try await reopened.keepChannelMessage(message("now-or-never", expiration: 0), untilMilliseconds: nil))
        #expect(try await reopened.channel(id: channel.id, bundleID: "a.b", environment: .sandbox)?.keptMessage == nil)
        #expect(try await reopened.keepChannelMessage(message("third", expiration: 300), untilMilliseconds: 300_000))
        #expect(try await reopened.allChannels(limit: 10).map(\.id) == [channel.id])
        #expect(try await reopened.deleteChannel(id: channel.id, bundleID: "a.b", environment: .sandbox))
        #expect(try await !reopened.keepChannelMessage(message("after", expiration: 300), untilMilliseconds: 300_000))
        #expect(try await reopened.allChannels(limit: 10).isEmpty)
        await reopened.shutdown()
    }
}
