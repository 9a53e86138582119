import HeraldCore
import HeraldStore

/// Broadcast requests on the provider ports (docs/broadcast.md): `POST /4/broadcasts/apps/<bundle>` with
/// `apns-channel-id`, a Live Activity payload for every activity subscribed to the channel.
extension ProviderRequestProcessor {
    /// The largest broadcast payload (Apple: 5 KB, spec §A.6).
    static let maximumBroadcastPayload = 5_120
    /// The `apns-priority` values a broadcast may have: a Live Activity update is 5 or 10.
    static let broadcastPriorities: Set<String> = ["5", "10"]

    /// Decides a broadcast: every header, the authentication and the payload on the event loop; the channel's
    /// existence and storage policy in the store (``ProviderDecision/perform(_:)``).
    func broadcastDecision(
        head: ProviderRequestHead,
        bundleID: String,
        body: [UInt8],
        bodyTooLarge: Bool,
        connection: inout ProviderConnectionState,
        uniqueID: String?
    ) -> ProviderDecision {
        let requestID = head.requestID.flatMap { NotificationID($0)?.text } ?? NotificationID.random().text
        let refusal = refusal(requestID: requestID, uniqueID: uniqueID)
        func fail(_ reason: APNSReason) -> ProviderDecision { .respond(refusal(reason)) }
        guard head.method == "POST" else { return fail(.methodNotAllowed) }
        guard !head.hasDuplicates else { return fail(.duplicateHeaders) }
        if let given = head.requestID, NotificationID(given) == nil { return fail(.badRequestParams) }
        if let reason = appAuthentication(head: head, bundleID: bundleID, connection: &connection) { return fail(reason) }
        guard let channelID = head.channelID else { return fail(.missingChannelId) }
        guard ChannelID.isWellFormed(channelID) else { return fail(.badChannelId) }
        guard let pushType = head.pushType else { return fail(.missingPushType) }
        guard pushType.lowercased() == PushType.liveactivity.rawValue else { return fail(.invalidPushType) }
        guard let priority = head.priority, Self.broadcastPriorities.contains(priority) else { return fail(.badPriority) }
        guard let expirationText = head.expiration, let expiration = Int64(expirationText), expiration >= 0 else {
            return fail(.badExpirationDate)
        }
        guard !bodyTooLarge, body.count <= Self.maximumBroadcastPayload else { return fail(.payloadTooLarge) }
        if let reason = Self.broadcastPayloadRefusal(body) { return fail(reason) }
        let services = self.services
        let environment = self.environment
        let acceptedAt = services.clock.nowMilliseconds()
        let message = ChannelMessage(
            channelID: channelID,
            bundleID: bundleID,
            environment: environment,
            requestID: requestID,
            priority: Int(priority) ?? 10,
            expiration: expiration,
            acceptedAtMilliseconds: acceptedAt,
            payload: body
        )
        return .perform { reply in
            Task {
                do {
                    guard let channel = try await services.store.channel(id: channelID, bundleID: bundleID, environment: environment) else {
                        return reply(refusal(.channelNotRegistered))
                    }
                    // A channel that stores nothing delivers to the devices connected now: there is nothing to expire.
                    if channel.storagePolicy == 0, expiration != 0 { return reply(refusal(.badExpirationDate)) }
                    if channel.storagePolicy == 1 {
                        // Durable before the `200`: a device that subscribes later, even after a restart, gets it.
                        let until = message.keptUntilMilliseconds(maximumSeconds: services.maximumBroadcastStorageSeconds)
                        guard try await services.store.keepChannelMessage(message, untilMilliseconds: until) else {
                            return reply(refusal(.channelNotRegistered))
                        }
                    }
                    var response = Self.channelSuccess(200, requestID: requestID)
                    response.uniqueID = uniqueID
                    reply(response)
                    // After the answer: the provider's `200` does not wait for the writes to thousands of devices.
                    services.onBroadcast?(message)
                } catch {
                    reply(refusal(Self.reason(forCommitFailure: error)))
                }
            }
        }
    }

    /// Why a broadcast's payload is refused, if it is: empty or not a JSON object with an `aps` object
    /// (`PayloadEmpty`, `BadRequestPayload`), or not an update or end of a Live Activity (`BadRequestPayload`,
    /// chosen: Apple documents that a broadcast cannot start an activity, not the reason).
    static func broadcastPayloadRefusal(_ body: [UInt8]) -> APNSReason? {
        guard !body.isEmpty else { return .payloadEmpty }
        guard case .object(let root)? = try? JSONParser.parse(body), let aps = root["aps"]?.objectValue else {
            return .badRequestPayload
        }
        guard let event = aps["event"]?.stringValue, event == "update" || event == "end" else { return .badRequestPayload }
        guard aps["timestamp"]?.integerValue != nil else { return .badRequestPayload }
        if event == "update", aps["content-state"]?.objectValue == nil { return .badRequestPayload }
        return nil
    }
}
