import HeraldCore
import HeraldDeviceLink
import HeraldStore

extension DeviceLinkConnection {
    /// Registers a web app's push subscription and answers with its endpoint (docs/device-link.md, "web-push-subscribe").
    ///
    /// The registry keeps it as a token of kind `web-push`: the web app's origin where an app's bundle id goes, its
    /// `applicationServerKey` where an activity type goes, in production (a web push has no sandbox). A second
    /// subscription of the same device, origin and key replaces the first, as a browser keeps one per site and key: the
    /// outcome names the first, so that the engine drops what waits for it at once, as for an unsubscription.
    ///
    /// - Parameter linkHost: The host the device reached the link at (its `Host` header), for the endpoint's host.
    static func subscribeWebPush(
        _ request: DeviceLinkWebPushSubscriptionRequest,
        deviceID: String,
        linkHost: String?,
        services: DeviceLinkServices
    ) async -> StoreOutcome {
        // The endpoint first: a subscription no site could send to is not registered.
        guard let endpoint = await services.configuration.webPush.endpoint(for: request.token, linkHost: linkHost) else {
            return .failed(
                DeviceLinkError(code: .internal, message: "the push service (the provider port) is not listening; try again", id: request.id)
            )
        }
        let registration = ActivityTokenRequest(
            deviceID: deviceID,
            bundleID: request.origin,
            environment: .production,
            kind: .webPush,
            token: request.token,
            activityType: request.applicationServerKey
        )
        do {
            let previous = try await activeSubscription(of: deviceID, like: request, services: services)
            let registered = try await services.registry.registerActivityToken(registration, limit: DeviceLinkClientMessage.maximumActivityTokens)
            var replaced: TokenRecord?
            if let previous, registered.isNew {
                replaced = try await services.registry.tokens(deviceID: deviceID).first { $0.token == previous.token && !$0.isActive }
            }
            return .webPushSubscribed(
                DeviceLinkWebPushSubscription(
                    id: request.id,
                    token: request.token,
                    endpoint: endpoint,
                    isNew: registered.isNew,
                    unsubscribeOnPermissionRemoval: services.configuration.webPush.unsubscribeOnPermissionRemoval
                ),
                replaced: replaced.map { ($0.token, $0.unregisteredAtMilliseconds ?? services.clock.nowMilliseconds()) }
            )
        } catch let error as StoreError where error == .duplicateDeviceToken {
            return .failed(
                DeviceLinkError(
                    code: .tokenTaken,
                    message: "the subscription id is registered to another device, origin or kind, or was retired",
                    id: request.id
                )
            )
        } catch let error as StoreError where error == .tooManyTokens {
            let limit = DeviceLinkClientMessage.maximumActivityTokens
            return .failed(
                DeviceLinkError(
                    code: .tooManyTokens,
                    message: "the device already has \(limit) active activity tokens and web push subscriptions",
                    id: request.id
                )
            )
        } catch {
            return .failed(internalError(error, while: "registering the web push subscription", id: request.id, services: services))
        }
    }

    /// The device's active subscription for the request's origin and key under another id: the one the request replaces.
    private static func activeSubscription(
        of deviceID: String,
        like request: DeviceLinkWebPushSubscriptionRequest,
        services: DeviceLinkServices
    ) async throws -> TokenRecord? {
        try await services.registry.tokens(deviceID: deviceID).first {
            $0.kind.isWebPush && $0.isActive && $0.bundleID == request.origin && $0.activityType == request.applicationServerKey
                && $0.token != request.token
        }
    }

    /// Ends one of the device's web push subscriptions at the current time: its endpoint then answers `410`.
    static func unsubscribeWebPush(id: String?, token: DeviceToken, deviceID: String, services: DeviceLinkServices) async -> StoreOutcome {
        do {
            let record = try await services.registry.tokens(deviceID: deviceID).first { $0.token == token }
            guard let record, record.kind.isWebPush, record.isActive else {
                return .failed(DeviceLinkError(code: .notRegistered, message: "the device has no active web push subscription \(token.hex)", id: id))
            }
            let now = services.clock.nowMilliseconds()
            let retired = try await services.registry.unregister(token, atMilliseconds: now)
            return .webPushUnsubscribed(
                DeviceLinkWebPushUnsubscription(id: id, token: token, retiredAtMilliseconds: retired.unregisteredAtMilliseconds ?? now)
            )
        } catch {
            return .failed(internalError(error, while: "ending the web push subscription", id: id, services: services))
        }
    }
}
