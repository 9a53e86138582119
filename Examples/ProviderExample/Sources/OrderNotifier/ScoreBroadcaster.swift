import Foundation
import HeraldCore
import HeraldProviderClient

/// A provider's Live Activity code: a match's score on every fan's lock screen, through one broadcast channel.
///
/// It starts a fan's activity by push-to-start, subscribed to the match's channel (`input-push-channel`), and then
/// sends each score once, to the channel, however many fans follow it. It knows nothing of Herald.
public struct ScoreBroadcaster: Sendable {
    /// The APNs client it sends with (in production, channel management goes to Apple's management host).
    public let client: APNSProviderClient
    /// The sports app's bundle id.
    public let bundleID: String

    /// Creates a broadcaster for the app `bundleID`.
    public init(client: APNSProviderClient, bundleID: String) {
        self.client = client
        self.bundleID = bundleID
    }

    /// Creates the match's channel (the most recent score is kept for fans who come back later); returns its id.
    public func openMatch() async throws -> String {
        let response = try await client.createChannel(bundleID: bundleID, storagePolicy: .mostRecentMessageStored)
        guard response.status == 201, let channel = response.channelID else {
            throw ScoreBroadcasterError(status: response.status, reason: response.reason?.rawValue)
        }
        return channel
    }

    /// Starts the match's Live Activity on a fan's phone, following the channel.
    public func follow(_ match: String, channel: String, pushToStartToken: String, now: Date = Date()) async throws {
        let aps: [String: Any] = [
            "event": "start", "timestamp": Int(now.timeIntervalSince1970), "attributes-type": "MatchAttributes",
            "attributes": ["match": match], "content-state": ["score": "0-0", "minute": 0],
            "alert": ["title": match, "body": "Kick-off"], "input-push-channel": channel,
        ]
        let request = APNSRequest(
            deviceToken: pushToStartToken,
            payload: Array(try JSONSerialization.data(withJSONObject: ["aps": aps], options: [.sortedKeys])),
            topic: bundleID + ".push-type.liveactivity",
            pushType: .liveactivity,
            priority: .immediate
        )
        let response = try await client.send(request)
        guard response.isAccepted else { throw ScoreBroadcasterError(status: response.status, reason: response.reason?.rawValue) }
    }

    /// Sends a score to every fan following the channel; kept for an hour for fans who are offline now.
    public func score(_ score: String, minute: Int, channel: String, now: Date = Date()) async throws {
        try await broadcast(
            ["event": "update", "timestamp": Int(now.timeIntervalSince1970), "content-state": ["score": score, "minute": minute]],
            channel: channel,
            expiration: Int64(now.timeIntervalSince1970) + 3600
        )
    }

    /// The final whistle: the activities end and leave the lock screens at once.
    public func finalWhistle(_ score: String, channel: String, now: Date = Date()) async throws {
        let seconds = Int(now.timeIntervalSince1970)
        try await broadcast(
            ["event": "end", "timestamp": seconds, "content-state": ["score": score, "minute": 90], "dismissal-date": seconds],
            channel: channel,
            expiration: 0
        )
    }

    private func broadcast(_ aps: [String: Any], channel: String, expiration: Int64) async throws {
        let payload = Array(try JSONSerialization.data(withJSONObject: ["aps": aps], options: [.sortedKeys]))
        let response = try await client.broadcast(
            APNSBroadcastRequest(bundleID: bundleID, channelID: channel, payload: payload, expiration: expiration)
        )
        guard response.status == 200 else { throw ScoreBroadcasterError(status: response.status, reason: response.reason?.rawValue) }
    }
}

/// APNs refused a channel or broadcast request.
public struct ScoreBroadcasterError: Error, Sendable {
    /// The HTTP status.
    public var status: Int
    /// The APNs reason, such as `ChannelNotRegistered`.
    public var reason: String?
}
