import HeraldCore
import HeraldStore

/// Channel management on the provider ports (docs/broadcast.md): `POST`, `GET` and `DELETE /1/apps/<bundle>/channels`
/// and `GET /1/apps/<bundle>/all-channels`, with the provider's own authentication.
extension ProviderRequestProcessor {
    /// Channels an app may have in one environment (Apple's documented limit).
    static let channelsPerApp = 10_000

    /// Decides a channel-management request; the store work runs off the event loop (``ProviderDecision/perform(_:)``).
    func channelDecision(
        head: ProviderRequestHead,
        target: ProviderRequestHead.PathTarget,
        bundleID: String,
        body: [UInt8],
        bodyTooLarge: Bool,
        connection: inout ProviderConnectionState
    ) -> ProviderDecision {
        let requestID = head.requestID.flatMap { NotificationID($0)?.text } ?? NotificationID.random().text
        let refusal = refusal(requestID: requestID)
        func fail(_ reason: APNSReason) -> ProviderDecision { .respond(refusal(reason)) }
        // 1. method, per path
        let allowed: Set<String> = if case .allChannels = target { ["GET"] } else { ["POST", "GET", "DELETE"] }
        guard let method = head.method, allowed.contains(method) else { return fail(.methodNotAllowed) }
        // 2. headers: duplicates, a request id that is not a UUID
        guard !head.hasDuplicates else { return fail(.duplicateHeaders) }
        if let given = head.requestID, NotificationID(given) == nil { return fail(.badRequestParams) }
        // 3. authentication, as for a push to the app
        if let reason = appAuthentication(head: head, bundleID: bundleID, connection: &connection) { return fail(reason) }
        // 4. the request itself
        let store = services.store
        let onChannelDeleted = services.onChannelDeleted
        let environment = self.environment
        let answer = { (work: @escaping @Sendable () async throws -> ProviderResponse) -> ProviderDecision in
            .perform { reply in
                Task {
                    do {
                        reply(try await work())
                    } catch {
                        // A full store is 503, as for a push; anything else 500.
                        reply(refusal(Self.reason(forCommitFailure: error)))
                    }
                }
            }
        }
        if case .allChannels = target {
            return answer {
                let ids = try await store.channels(bundleID: bundleID, environment: environment).map(\.id)
                let body = JSONValue.object(["channels": .array(ids.map(JSONValue.string))]).jsonBytes()
                return Self.channelSuccess(200, requestID: requestID, body: body)
            }
        }
        switch method {
        case "POST":
            guard !bodyTooLarge else { return fail(.payloadTooLarge) }
            let configuration: (storagePolicy: Int, pushType: String)
            switch Self.channelConfiguration(body) {
            case .failure(let reason): return fail(reason)
            case .success(let parsed): configuration = parsed
            }
            return answer {
                guard
                    let channel = try await store.createChannel(
                        bundleID: bundleID,
                        environment: environment,
                        storagePolicy: configuration.storagePolicy,
                        pushType: configuration.pushType,
                        limit: Self.channelsPerApp
                    )
                else { return refusal(.cannotCreateChannelConfig) }
                var response = Self.channelSuccess(201, requestID: requestID)
                response.extraHeaders.insert((name: "apns-channel-id", value: channel.id), at: 0)
                return response
            }
        default:
            guard let channelID = head.channelID else { return fail(.missingChannelId) }
            guard ChannelID.isWellFormed(channelID) else { return fail(.badChannelId) }
            let isDelete = method == "DELETE"
            return answer {
                if isDelete {
                    guard try await store.deleteChannel(id: channelID, bundleID: bundleID, environment: environment) else {
                        return refusal(.channelNotRegistered)
                    }
                    onChannelDeleted?(channelID, bundleID, environment)
                    return Self.channelSuccess(204, requestID: requestID)
                }
                guard let channel = try await store.channel(id: channelID, bundleID: bundleID, environment: environment) else {
                    return refusal(.channelNotRegistered)
                }
                let object: [String: JSONValue] = ["message-storage-policy": .int(channel.storagePolicy), "push-type": .string(channel.pushType)]
                var response = Self.channelSuccess(200, requestID: requestID, body: JSONValue.object(object).jsonBytes())
                response.extraHeaders.insert((name: "apns-channel-id", value: channel.id), at: 0)
                return response
            }
        }
    }

    /// Authenticates a channel or broadcast request as a push to the app (`bundleID`); the refusal, if any.
    ///
    /// A certificate that failed, an `apns-topic` naming another app (`TopicMismatch`), the provider token's checks,
    /// and a token of another team than the app's (`TopicDisallowed`).
    func appAuthentication(head: ProviderRequestHead, bundleID: String, connection: inout ProviderConnectionState) -> APNSReason? {
        if let rejection = connection.certificateRejection { return rejection }
        if let topic = head.topic, topic != bundleID, PushType.liveactivity.bundleID(fromTopic: topic) != bundleID {
            return .topicMismatch
        }
        var authenticated = head
        authenticated.topic = bundleID
        authenticated.pushType = nil
        let nowSeconds = services.clock.nowMilliseconds() / 1000
        let authorization = authenticate(head: authenticated, connection: &connection, nowSeconds: nowSeconds)
        if let reason = authorization.rejection { return reason }
        if let teamID = authorization.teamID, let owner = try? services.store.appTeam(bundleID: bundleID), owner != teamID {
            return .topicDisallowed
        }
        return nil
    }

    /// `{"message-storage-policy": 0 or 1, "push-type": "LiveActivity"}`; the push type in any of the spellings
    /// Apple's pages use (it is stored as `LiveActivity`).
    static func channelConfiguration(_ body: [UInt8]) -> Result<(storagePolicy: Int, pushType: String), APNSReason> {
        guard !body.isEmpty else { return .failure(.badRequestPayload) }
        guard let object = (try? JSONParser.parse(body))?.objectValue else { return .failure(.badRequestPayload) }
        guard Set(object.memberNames).isSubset(of: ["message-storage-policy", "push-type"]) else { return .failure(.badRequestParams) }
        guard let pushType = object["push-type"] else { return .failure(.missingPushType) }
        guard let text = pushType.stringValue, text.lowercased() == "liveactivity" else { return .failure(.invalidPushType) }
        // `true` is not 1; 1.0 is.
        guard let value = object["message-storage-policy"]?.integerValue, value == 0 || value == 1 else { return .failure(.badRequestParams) }
        return .success((storagePolicy: value, pushType: "LiveActivity"))
    }

    /// How a channel or broadcast request is refused: counted, with the request's id (and the sandbox's unique id, for a
    /// broadcast), now or after the store's answer.
    func refusal(requestID: String, uniqueID: String? = nil) -> @Sendable (APNSReason) -> ProviderResponse {
        let recorder = self.metrics
        return { reason in
            recorder.recordRejected(reason)
            var response = Self.channelFailure(reason, requestID: requestID)
            response.uniqueID = uniqueID
            return response
        }
    }

    static func channelSuccess(_ status: Int, requestID: String, body: [UInt8]? = nil) -> ProviderResponse {
        var response = ProviderResponse(status: status, apnsID: "")
        response.sendsAPNSID = false
        response.extraHeaders = [(name: "apns-request-id", value: requestID)]
        response.successBody = body
        return response
    }

    static func channelFailure(_ reason: APNSReason, requestID: String) -> ProviderResponse {
        var response = ProviderResponse.failure(reason, apnsID: "")
        response.sendsAPNSID = false
        response.extraHeaders = [(name: "apns-request-id", value: requestID)]
        return response
    }
}
