import HeraldCore
import Synchronization

/// A connected device as a broadcast channel sees it: somewhere to send broadcasts.
///
/// The device link implements it over its WebSocket; tests implement it in memory. Called from any thread, it must
/// not block and must not fail: a closed connection drops the frame.
public protocol ChannelSubscriber: Sendable {
    /// The connection's id.
    var id: DeviceSessionID { get }
    /// The device the connection authenticated as.
    var deviceID: String { get }
    /// Sends a `broadcast` frame.
    func broadcast(_ broadcast: ChannelBroadcast)
}

/// One broadcast on its way to every subscriber: the message, and its frame encoded once for all of them.
public final class ChannelBroadcast: Sendable {
    /// The message as accepted.
    public let message: ChannelMessage
    private let encoded = Mutex<[UInt8]?>(nil)

    /// Wraps a message.
    public init(_ message: ChannelMessage) {
        self.message = message
    }

    /// The frame's bytes: `encode` runs for the first subscriber only.
    public func frame(_ encode: (ChannelMessage) -> [UInt8]) -> [UInt8] {
        if let bytes = encoded.withLock({ $0 }) { return bytes }
        let bytes = encode(message)
        encoded.withLock { if $0 == nil { $0 = bytes } }
        return bytes
    }
}

/// A channel's identity: its id within one app and environment.
public struct ChannelKey: Hashable, Sendable, CustomStringConvertible {
    /// The channel id.
    public var channelID: String
    /// The app.
    public var bundleID: String
    /// The environment.
    public var environment: APNSEnvironment

    /// Creates a key.
    public init(channelID: String, bundleID: String, environment: APNSEnvironment) {
        self.channelID = channelID
        self.bundleID = bundleID
        self.environment = environment
    }

    /// The key of a message's channel.
    public init(_ message: ChannelMessage) {
        self.init(channelID: message.channelID, bundleID: message.bundleID, environment: message.environment)
    }

    public var description: String { "\(bundleID)/\(environment.rawValue)/\(channelID)" }
}

/// Which connected devices subscribe to which broadcast channels, and the fan-out of each broadcast to them
/// (docs/broadcast.md, "Delivery").
///
/// Subscriptions live as long as the device's connection: a device subscribes its activities' channels after every
/// `hello` (`subscribe-channel`), so nothing here needs to be stored. What a provider broadcast while a device was
/// away reaches it through the channel's kept message (storage policy 1), which the device link sends right after
/// the subscription.
public final class ChannelHub: Sendable {
    /// The most channels one connection may subscribe to; one more is refused (`too-many-subscriptions`).
    ///
    /// Why 64: an app runs at most 5 activities (docs/live-activities.md), each on at most one channel; 64 leaves room
    /// for several apps while bounding what one connection can make the server hold.
    public static let maximumSubscriptionsPerSession = 64
    /// How many recent broadcasts each channel remembers for the inspection API.
    public static let recentBroadcastCount = 20

    /// One broadcast as the inspection API shows it.
    public struct BroadcastRecord: Sendable, Hashable {
        /// Its `apns-request-id`.
        public var requestID: String
        /// When it was accepted, in milliseconds since the epoch.
        public var acceptedAtMilliseconds: Int64
        /// `apns-priority`.
        public var priority: Int
        /// How many connected devices it was sent to.
        public var sentTo: Int
    }

    /// A subscription as the inspection API shows it.
    public struct Subscriber: Sendable, Hashable {
        /// The device.
        public var deviceID: String
        /// The connection.
        public var session: DeviceSessionID
    }

    /// Why a subscription was refused.
    public enum SubscribeError: Error, Equatable {
        /// The connection has ``maximumSubscriptionsPerSession`` already.
        case tooMany
    }

    private struct State {
        var subscribers: [ChannelKey: [DeviceSessionID: any ChannelSubscriber]] = [:]
        var bySession: [DeviceSessionID: Set<ChannelKey>] = [:]
        var recent: [ChannelKey: [BroadcastRecord]] = [:]
        /// Every connection's subscriptions together, kept as they change (the gauge reads it on each change).
        var count = 0

        /// Ends one subscription in both maps; false when there was none.
        mutating func end(_ session: DeviceSessionID, _ key: ChannelKey) -> Bool {
            guard bySession[session]?.remove(key) != nil else { return false }
            if bySession[session]?.isEmpty == true { bySession[session] = nil }
            subscribers[key]?[session] = nil
            if subscribers[key]?.isEmpty == true { subscribers[key] = nil }
            count -= 1
            return true
        }
    }

    private let state = Mutex(State())
    private let onBroadcast: (@Sendable (ChannelMessage, Int) -> Void)?
    private let metrics: BroadcastMetrics?

    /// Creates a hub; `onBroadcast` hears of each broadcast with the number of devices it was sent to (the console),
    /// `metrics` counts broadcasts, frames and subscriptions.
    public init(metrics: BroadcastMetrics? = nil, onBroadcast: (@Sendable (ChannelMessage, Int) -> Void)? = nil) {
        self.metrics = metrics
        self.onBroadcast = onBroadcast
    }

    /// How many subscriptions the open connections hold.
    public var subscriptionCount: Int {
        state.withLock { $0.count }
    }

    /// Subscribes a connection to a channel; subscribing twice is one subscription. Returns whether it is new.
    @discardableResult
    public func subscribe(_ subscriber: any ChannelSubscriber, to key: ChannelKey) throws(SubscribeError) -> Bool {
        let result = state.withLock { state -> Result<Int?, SubscribeError> in
            let keys = state.bySession[subscriber.id, default: []]
            if keys.contains(key) { return .success(nil) }
            guard keys.count < Self.maximumSubscriptionsPerSession else { return .failure(.tooMany) }
            state.bySession[subscriber.id, default: []].insert(key)
            state.subscribers[key, default: [:]][subscriber.id] = subscriber
            state.count += 1
            return .success(state.count)
        }
        guard let count = try result.get() else { return false }
        metrics?.recordSubscriptions(count)
        return true
    }

    /// Ends one subscription; returns whether there was one.
    @discardableResult
    public func unsubscribe(_ session: DeviceSessionID, from key: ChannelKey) -> Bool {
        let count = state.withLock { state in state.end(session, key) ? state.count : nil }
        if let count { metrics?.recordSubscriptions(count) }
        return count != nil
    }

    /// The connection closed: its subscriptions end.
    public func sessionClosed(_ session: DeviceSessionID) {
        let count = state.withLock { state in
            for key in state.bySession[session] ?? [] { _ = state.end(session, key) }
            return state.count
        }
        metrics?.recordSubscriptions(count)
    }

    /// The channel was deleted: its subscriptions and its history end.
    public func channelDeleted(_ key: ChannelKey) {
        let count = state.withLock { state in
            for session in state.subscribers[key].map({ Array($0.keys) }) ?? [] { _ = state.end(session, key) }
            state.recent[key] = nil
            return state.count
        }
        metrics?.recordSubscriptions(count)
    }

    /// Sends a broadcast to every connection subscribed to its channel now; returns how many.
    @discardableResult
    public func broadcast(_ message: ChannelMessage) -> Int {
        let key = ChannelKey(message)
        let subscribers = state.withLock { state -> [any ChannelSubscriber] in
            let subscribers = state.subscribers[key].map { Array($0.values) } ?? []
            var recent = state.recent[key, default: []]
            recent.append(
                BroadcastRecord(
                    requestID: message.requestID,
                    acceptedAtMilliseconds: message.acceptedAtMilliseconds,
                    priority: message.priority,
                    sentTo: subscribers.count
                )
            )
            if recent.count > Self.recentBroadcastCount { recent.removeFirst(recent.count - Self.recentBroadcastCount) }
            state.recent[key] = recent
            return subscribers
        }
        let broadcast = ChannelBroadcast(message)
        for subscriber in subscribers { subscriber.broadcast(broadcast) }
        metrics?.recordBroadcast(sentTo: subscribers.count)
        onBroadcast?(message, subscribers.count)
        return subscribers.count
    }

    /// The connections subscribed to a channel, by device id.
    public func subscribers(of key: ChannelKey) -> [Subscriber] {
        state.withLock { state in
            (state.subscribers[key] ?? [:]).values.map { Subscriber(deviceID: $0.deviceID, session: $0.id) }
                .sorted { ($0.deviceID, $0.session.rawValue) < ($1.deviceID, $1.session.rawValue) }
        }
    }

    /// The channel's most recent broadcasts, oldest first (since this process started).
    public func recentBroadcasts(of key: ChannelKey) -> [BroadcastRecord] {
        state.withLock { $0.recent[key] ?? [] }
    }

    /// The channels a connection subscribes to.
    public func subscriptions(of session: DeviceSessionID) -> Set<ChannelKey> {
        state.withLock { $0.bySession[session] ?? [] }
    }
}
