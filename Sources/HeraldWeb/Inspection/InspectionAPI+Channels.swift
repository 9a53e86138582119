import HeraldCore
import HeraldDelivery
import HeraldStore

extension InspectionAPI {
    /// `GET /api/v1/channels`: every broadcast channel (oldest first, at most `limit`), or the one `id` names, with
    /// the devices subscribed now, the kept broadcast and the recent broadcasts (docs/broadcast.md, "Inspection").
    ///
    /// A query parameter rather than a path segment, because a channel id is base64 and may hold `/`.
    func listChannels(request: WebRequest) async throws -> WebResponse {
        let limit = try Self.limit(request)
        var channels = try await store.allChannels(limit: request.queryValue("id") == nil ? limit : Self.maximumLimit)
        if let id = request.queryValue("id") {
            guard ChannelID.isWellFormed(id) else { throw WebError.badRequest("id must be a channel id: base64 of 1 to 48 bytes") }
            channels = channels.filter { $0.id == id }
            guard !channels.isEmpty else { throw WebError.notFound("no channel \(id)") }
        }
        let now = clock.nowMilliseconds()
        var writer = JSONTextWriter(capacity: 256 * channels.count + 16)
        writer.beginObject()
        writer.key("channels")
        writer.beginArray()
        for channel in channels {
            let key = ChannelKey(channelID: channel.id, bundleID: channel.bundleID, environment: channel.environment)
            writeChannel(
                channel,
                now: now,
                subscribers: self.channels?.subscribers(of: key) ?? [],
                recent: self.channels?.recentBroadcasts(of: key) ?? [],
                into: &writer
            )
        }
        writer.endArray()
        writer.endObject()
        return .json(writer.bytes)
    }

    /// `Channel`: `{id, bundleID, environment, storagePolicy, pushType, createdAt, subscribers, kept, recent}`.
    private func writeChannel(
        _ channel: ChannelRecord,
        now: Int64,
        subscribers: [ChannelHub.Subscriber],
        recent: [ChannelHub.BroadcastRecord],
        into writer: inout JSONTextWriter
    ) {
        writer.beginObject()
        writer.member("id", channel.id)
        writer.member("bundleID", channel.bundleID)
        writer.member("environment", channel.environment.rawValue)
        writer.member("storagePolicy", channel.storagePolicy)
        writer.member("pushType", channel.pushType)
        writer.member("createdAt", channel.createdAtMilliseconds)
        writer.key("subscribers")
        writer.beginArray()
        for subscriber in subscribers {
            writer.beginObject()
            writer.member("deviceID", subscriber.deviceID)
            writer.endObject()
        }
        writer.endArray()
        writer.key("kept")
        if let kept = channel.keptMessage, kept.untilMilliseconds > now {
            writer.beginObject()
            writer.member("requestID", kept.message.requestID)
            writer.member("priority", kept.message.priority)
            writer.member("acceptedAt", kept.message.acceptedAtMilliseconds)
            writer.member("keptUntil", kept.untilMilliseconds)
            writer.key("payload")
            writer.rawValue(kept.message.payload)
            writer.endObject()
        } else {
            writer.null()
        }
        writer.key("recent")
        writer.beginArray()
        for broadcast in recent {
            writer.beginObject()
            writer.member("requestID", broadcast.requestID)
            writer.member("priority", broadcast.priority)
            writer.member("acceptedAt", broadcast.acceptedAtMilliseconds)
            writer.member("sentTo", broadcast.sentTo)
            writer.endObject()
        }
        writer.endArray()
        writer.endObject()
    }
}
