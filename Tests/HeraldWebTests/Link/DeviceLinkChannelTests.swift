import HeraldCore
import HeraldDeviceLink
import HeraldStore
import HeraldTestSupport
import HeraldTestTiers
import Testing

@testable import HeraldDelivery
@testable import HeraldWeb

@Suite("Device link: channel subscriptions, broadcasts and kept messages on a live server", .tier(.inProcess))
struct DeviceLinkChannelTests {
    static let app = "com.example.app"

    static func message(_ channel: ChannelRecord, requestID: String, expiration: Int64 = 0) -> ChannelMessage {
        ChannelMessage(
            channelID: channel.id,
            bundleID: channel.bundleID,
            environment: channel.environment,
            requestID: requestID,
            priority: 10,
            expiration: expiration,
            acceptedAtMilliseconds: 1_700_000_000_000,
            payload: Array(#"{"aps":{"event":"update","timestamp":1700000000,"content-state":{"n":1}}}"#.utf8)
        )
    }

    @Test("a subscribed device gets each broadcast once its subscription is answered; unsubscribing and closing end it")
    func subscribeAndReceive() async throws {
        try await LinkServerFixture.with { fixture in
            let hub = fixture.server.channels
            let channel = try #require(
                try await fixture.store.createChannel(
                    bundleID: Self.app,
                    environment: .sandbox,
                    storagePolicy: 0,
                    pushType: "LiveActivity",
                    limit: 10
                )
            )
            let client = try await fixture.connect(as: try await fixture.addDevice())
            let reply = try await client.subscribeChannel(channel.id, bundleID: Self.app, environment: .sandbox)
            #expect(reply.isNew)
            #expect(reply.channelID == channel.id)
            #expect(try await client.subscribeChannel(channel.id, bundleID: Self.app, environment: .sandbox).isNew == false)
            let key = ChannelKey(channelID: channel.id, bundleID: Self.app, environment: .sandbox)
            #expect(hub.subscribers(of: key).count == 1)

            #expect(hub.broadcast(Self.message(channel, requestID: "r1")) == 1)
            guard case .broadcast(let received) = try await client.nextMessage() else {
                Issue.record("expected a broadcast frame")
                return
            }
            #expect(received == Self.message(channel, requestID: "r1"))

            _ = try await client.unsubscribeChannel(channel.id, bundleID: Self.app, environment: .sandbox)
            #expect(hub.subscribers(of: key).isEmpty)
            _ = try await client.subscribeChannel(channel.id, bundleID: Self.app, environment: .sandbox)
            await client.close()
            try await eventually("the closed link's subscriptions are gone", within: .seconds(5)) { hub.subscribers(of: key).isEmpty }
        }
    }

    @Test("a channel that keeps its broadcast sends it right after the subscription is answered; an expired one is not sent")
    func keptMessage() async throws {
        try await LinkServerFixture.with { fixture in
            let channel = try #require(
                try await fixture.store.createChannel(
                    bundleID: Self.app,
                    environment: .sandbox,
                    storagePolicy: 1,
                    pushType: "LiveActivity",
                    limit: 10
                )
            )
            let now = fixture.clock.nowMilliseconds()
            let kept = Self.message(channel, requestID: "kept", expiration: now / 1000 + 60)
            #expect(try await fixture.store.keepChannelMessage(kept, untilMilliseconds: now + 60_000))
            let client = try await fixture.connect(as: try await fixture.addDevice())
            _ = try await client.subscribeChannel(channel.id, bundleID: Self.app, environment: .sandbox)
            guard case .broadcast(let received) = try await client.nextMessage() else {
                Issue.record("expected the kept broadcast")
                return
            }
            #expect(received.requestID == "kept")
            await client.close()

            fixture.clock.advance(seconds: 61)
            let later = try await fixture.connect(as: try await fixture.addDevice(name: "later"))
            _ = try await later.subscribeChannel(channel.id, bundleID: Self.app, environment: .sandbox)
            // The expired message is not sent: the next frame is a fresh broadcast.
            fixture.server.channels.broadcast(Self.message(channel, requestID: "fresh"))
            guard case .broadcast(let next) = try await later.nextMessage() else {
                Issue.record("expected the fresh broadcast")
                return
            }
            #expect(next.requestID == "fresh")
            await later.close()
        }
    }

    @Test("a channel the app does not have, in that environment, is refused with unknown-channel and no subscription")
    func unknownChannel() async throws {
        try await LinkServerFixture.with { fixture in
            let channel = try #require(
                try await fixture.store.createChannel(
                    bundleID: Self.app,
                    environment: .production,
                    storagePolicy: 0,
                    pushType: "LiveActivity",
                    limit: 10
                )
            )
            let client = try await fixture.connect(as: try await fixture.addDevice())
            for (bundle, environment) in [(Self.app, APNSEnvironment.sandbox), ("com.example.other", .production)] {
                await #expect(throws: DeviceLinkError.self) {
                    _ = try await client.subscribeChannel(channel.id, bundleID: bundle, environment: environment)
                }
            }
            do {
                _ = try await client.subscribeChannel("dW5rbm93bg==", bundleID: Self.app, environment: .production)
                Issue.record("an unknown channel was subscribed")
            } catch let error as DeviceLinkError {
                #expect(error.code == .unknownChannel)
            }
            #expect(fixture.server.channels.subscribers(of: ChannelKey(channelID: channel.id, bundleID: Self.app, environment: .sandbox)).isEmpty)
            // The link still works.
            #expect(try await client.subscribeChannel(channel.id, bundleID: Self.app, environment: .production).isNew)
            await client.close()
        }
    }
}
