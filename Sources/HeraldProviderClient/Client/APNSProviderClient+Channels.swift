extension APNSProviderClient {
    // The channel-management and broadcast APIs (docs/broadcast.md, spec §A.11). Apple serves channel management on
    // hosts of its own (`api-manage-broadcast[.sandbox].push.apple.com`, port 2195 sandbox, 2196 production), so a
    // client for Apple needs a second client for them; Herald serves both on its provider ports. Each call shares the
    // connection and the provider token with `send`.

    /// Creates a channel for an app's Live Activities: `POST /1/apps/<bundle>/channels`.
    ///
    /// - Parameters:
    ///   - bundleID: the app.
    ///   - storagePolicy: whether the channel keeps its most recent broadcast.
    ///   - requestID: `apns-request-id`, a UUID; the server makes one up when absent.
    /// - Returns: `201` with the new channel's id in ``APNSChannelResponse/channelID``, or the server's refusal
    ///   (`400 CannotCreateChannelConfig` past 10,000 channels, …).
    /// - Throws: ``APNSProviderClientError`` when there is no answer, as for ``send(_:)``.
    public func createChannel(
        bundleID: String,
        storagePolicy: APNSMessageStoragePolicy = .mostRecentMessageStored,
        requestID: String? = nil
    ) async throws -> APNSChannelResponse {
        try await channelAPI(.createChannel(bundleID: bundleID, storagePolicy: storagePolicy, requestID: requestID))
    }

    /// Reads a channel's configuration: `GET /1/apps/<bundle>/channels` with `apns-channel-id`.
    ///
    /// - Returns: `200` with the configuration in ``APNSChannelResponse/configuration``, or the server's refusal
    ///   (`400 ChannelNotRegistered` for a channel the app does not have, `400 BadChannelId` for an id that is not
    ///   base64, …).
    /// - Throws: ``APNSProviderClientError`` when there is no answer.
    public func channel(bundleID: String, channelID: String, requestID: String? = nil) async throws -> APNSChannelResponse {
        try await channelAPI(.channel("GET", bundleID: bundleID, channelID: channelID, requestID: requestID))
    }

    /// Deletes a channel: `DELETE /1/apps/<bundle>/channels` with `apns-channel-id`.
    ///
    /// - Returns: `204`, or the server's refusal (`400 ChannelNotRegistered`, …).
    /// - Throws: ``APNSProviderClientError`` when there is no answer.
    public func deleteChannel(bundleID: String, channelID: String, requestID: String? = nil) async throws -> APNSChannelResponse {
        try await channelAPI(.channel("DELETE", bundleID: bundleID, channelID: channelID, requestID: requestID))
    }

    /// Lists an app's channels in the server's environment: `GET /1/apps/<bundle>/all-channels`.
    ///
    /// - Returns: `200` with the ids, oldest first, in ``APNSChannelResponse/channelIDs``, or the server's refusal.
    /// - Throws: ``APNSProviderClientError`` when there is no answer.
    public func allChannels(bundleID: String, requestID: String? = nil) async throws -> APNSChannelResponse {
        try await channelAPI(.allChannels(bundleID: bundleID, requestID: requestID))
    }

    /// Sends one broadcast to the Live Activities subscribed to a channel: `POST /4/broadcasts/apps/<bundle>`.
    ///
    /// - Returns: `200` with ``APNSChannelResponse/requestID`` (and ``APNSChannelResponse/uniqueID`` in the sandbox),
    ///   or the server's refusal (`400 ChannelNotRegistered`, `400 BadExpirationDate`, …).
    /// - Throws: ``APNSProviderClientError`` when there is no answer; ``APNSProviderClientError/invalidRequest`` for a
    ///   bundle id or header value that cannot travel.
    public func broadcast(_ request: APNSBroadcastRequest) async throws -> APNSChannelResponse {
        try await channelAPI(.broadcast(request))
    }

    private func channelAPI(_ request: APNSChannelAPIRequest) async throws -> APNSChannelResponse {
        let answer = try await exchange(payload: request.body, responseBodyLimit: request.responseBodyLimit) {
            try headers(for: request, authorization: $0)
        }
        return APNSChannelResponse(answer)
    }
}
