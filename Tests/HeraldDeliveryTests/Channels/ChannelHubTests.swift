import HeraldCore
import HeraldDelivery
import HeraldTestSupport
import HeraldTestTiers
import Prometheus
import Synchronization
import Testing

@Suite("Channel hub: subscriptions and fan-out", .tier(.unit))
struct ChannelHubTests {
    /// A connection that records the broadcasts it was sent, as their frames.
    final class Recorder: ChannelSubscriber {
        let id = DeviceSessionID.next()
        let deviceID: String
        let frames = Mutex<[String]>([])
        let encodings: Atomic<Int>

        init(_ deviceID: String) {
            self.deviceID = deviceID
            self.encodings = Atomic(0)
        }

        func broadcast(_ broadcast: ChannelBroadcast) {
            let bytes = broadcast.frame { message in
                encodings.add(1, ordering: .relaxed)
                return Array("\(message.channelID):\(message.requestID)".utf8)
            }
            frames.withLock { $0.append(String(decoding: bytes, as: UTF8.self)) }
        }

        var received: [String] { frames.withLock { $0 } }
    }

    static let key = ChannelKey(channelID: "Y2hhbm5lbC1vbmU=", bundleID: "com.example.app", environment: .sandbox)

    static func message(_ requestID: String, key: ChannelKey = key) -> ChannelMessage {
        ChannelMessage(
            channelID: key.channelID,
            bundleID: key.bundleID,
            environment: key.environment,
            requestID: requestID,
            priority: 10,
            expiration: 0,
            acceptedAtMilliseconds: 1_000,
            payload: Array(#"{"aps":{}}"#.utf8)
        )
    }

    @Test("a broadcast reaches every subscriber of its channel and app and environment, and no one else")
    func fanOut() throws {
        let hub = ChannelHub()
        let subscribers = (0..<150).map { Recorder("device-\($0)") }
        for subscriber in subscribers { try hub.subscribe(subscriber, to: Self.key) }
        let otherApp = Recorder("other-app")
        try hub.subscribe(otherApp, to: ChannelKey(channelID: Self.key.channelID, bundleID: "com.example.other", environment: .sandbox))
        let otherEnvironment = Recorder("other-environment")
        try hub.subscribe(otherEnvironment, to: ChannelKey(channelID: Self.key.channelID, bundleID: Self.key.bundleID, environment: .production))

        #expect(hub.broadcast(Self.message("r1")) == 150)
        for subscriber in subscribers { #expect(subscriber.received == ["\(Self.key.channelID):r1"]) }
        #expect(otherApp.received.isEmpty)
        #expect(otherEnvironment.received.isEmpty)
        // The frame is encoded once for all 150.
        #expect(subscribers.map { $0.encodings.load(ordering: .relaxed) }.reduce(0, +) == 1)
        #expect(hub.subscribers(of: Self.key).count == 150)
        #expect(hub.recentBroadcasts(of: Self.key).map(\.sentTo) == [150])
    }

    @Test("subscribing twice is one subscription; unsubscribing, closing the session and deleting the channel end it")
    func lifecycle() throws {
        let hub = ChannelHub()
        let first = Recorder("one")
        let second = Recorder("two")
        #expect(try hub.subscribe(first, to: Self.key) == true)
        #expect(try hub.subscribe(first, to: Self.key) == false)
        try hub.subscribe(second, to: Self.key)
        #expect(hub.broadcast(Self.message("r1")) == 2)
        #expect(first.received.count == 1)

        #expect(hub.unsubscribe(first.id, from: Self.key) == true)
        #expect(hub.unsubscribe(first.id, from: Self.key) == false)
        #expect(hub.broadcast(Self.message("r2")) == 1)
        #expect(first.received.count == 1)

        hub.sessionClosed(second.id)
        #expect(hub.broadcast(Self.message("r3")) == 0)
        #expect(second.received.count == 2)
        #expect(hub.subscriptions(of: second.id).isEmpty)

        try hub.subscribe(first, to: Self.key)
        hub.channelDeleted(Self.key)
        #expect(hub.broadcast(Self.message("r4")) == 0)
        #expect(hub.subscribers(of: Self.key).isEmpty)
        #expect(hub.subscriptions(of: first.id).isEmpty)
        // The history went with the channel; the broadcast after it is its only entry.
        #expect(hub.recentBroadcasts(of: Self.key).map(\.requestID) == ["r4"])
    }

    @Test("one connection subscribes to at most 64 channels; the recent list keeps the last 20 broadcasts")
    func limits() throws {
        let hub = ChannelHub()
        let device = Recorder("many")
        for index in 0..<ChannelHub.maximumSubscriptionsPerSession {
            try hub.subscribe(device, to: ChannelKey(channelID: "channel-\(index)", bundleID: "com.a", environment: .sandbox))
        }
        #expect(throws: ChannelHub.SubscribeError.tooMany) {
            try hub.subscribe(device, to: ChannelKey(channelID: "channel-extra", bundleID: "com.a", environment: .sandbox))
        }
        // A subscription it already has is not one more.
        #expect(try hub.subscribe(device, to: ChannelKey(channelID: "channel-0", bundleID: "com.a", environment: .sandbox)) == false)
        #expect(ChannelHub.maximumSubscriptionsPerSession == 64)

        for index in 0..<25 { hub.broadcast(Self.message("r\(index)")) }
        #expect(hub.recentBroadcasts(of: Self.key).map(\.requestID) == (5..<25).map { "r\($0)" })
    }

    @Test("a kept message lasts until its apns-expiration, at most the storage limit; expiration 0 is not kept")
    func keptUntil() {
        var message = Self.message("k")
        message.acceptedAtMilliseconds = 1_700_000_000_000
        message.expiration = 0
        #expect(message.keptUntilMilliseconds(maximumSeconds: 28_800) == nil)
        message.expiration = 1_700_000_600
        #expect(message.keptUntilMilliseconds(maximumSeconds: 28_800) == 1_700_000_600_000)
        message.expiration = 1_800_000_000
        #expect(message.keptUntilMilliseconds(maximumSeconds: 28_800) == 1_700_028_800_000)
        // An expiration in the past: nothing to keep.
        message.expiration = 1_600_000_000
        #expect(message.keptUntilMilliseconds(maximumSeconds: 28_800) == nil)
        message.expiration = .max
        #expect(message.keptUntilMilliseconds(maximumSeconds: 28_800) == 1_700_028_800_000)
    }

    @Test("the metrics count broadcasts, the frames sent and the subscriptions held")
    func metrics() throws {
        let registry = PrometheusCollectorRegistry()
        let hub = ChannelHub(metrics: BroadcastMetrics(registry: registry))
        func value(_ name: String) -> Double? {
            var buffer: [UInt8] = []
            registry.emit(into: &buffer)
            return PrometheusText(String(decoding: buffer, as: UTF8.self))[name]
        }
        let devices = (0..<3).map { Recorder("device-\($0)") }
        for device in devices { try hub.subscribe(device, to: Self.key) }
        #expect(value("herald_channel_subscriptions") == 3)
        hub.broadcast(Self.message("r1"))
        hub.broadcast(Self.message("r2"))
        #expect(value("herald_broadcasts_total") == 2)
        #expect(value("herald_broadcast_frames_sent_total") == 6)
        hub.sessionClosed(devices[0].id)
        hub.unsubscribe(devices[1].id, from: Self.key)
        #expect(value("herald_channel_subscriptions") == 1)
    }
}
