import HeraldCore
import HeraldDeviceLink
import HeraldSimulator

/// The device link's web push requests, as a linked device makes them: the client, or a test's stand-in.
protocol WebPushSubscriber: Sendable {
    func subscribeWebPush(origin: String, applicationServerKey: String, token: DeviceToken) async throws -> DeviceLinkWebPushSubscription
    func unsubscribeWebPush(token: DeviceToken) async throws
}

extension DeviceLinkClient: WebPushSubscriber {}

extension LinkedDevice {
    /// The web app whose subscription is `token`, if any: its notifications go to it, not to the simulated iOS device.
    public func webApp(for token: DeviceToken) -> WebApp? {
        webApps.first { $0.subscriptionID == token }
    }

    /// The web app with this origin, if any (the console's interactions name a web app by its origin).
    public func webApp(origin: String) -> WebApp? {
        webApps.first { $0.origin == origin }
    }

    /// Subscribes every web app that is not revoked (the same subscription id each time: the push service answers
    /// with the endpoint it already has). A refusal is told as a server error and the others go on; a broken link
    /// fails the session, as a registration does.
    func subscribeWebApps(with subscriber: some WebPushSubscriber) async throws {
        for app in webApps {
            if case .revoked = await app.subscription {
                // Told again on each connection, in case the link closed before the push service heard it.
                try? await subscriber.unsubscribeWebPush(token: app.subscriptionID)
                continue
            }
            do {
                let answer = try await subscriber.subscribeWebPush(
                    origin: app.origin,
                    applicationServerKey: app.applicationServerKey.base64URL,
                    token: app.subscriptionID
                )
                let mustUnsubscribe = await app.subscribed(
                    endpoint: answer.endpoint,
                    unsubscribeOnPermissionRemoval: answer.unsubscribeOnPermissionRemoval
                )
                onEvent(.webPushSubscribed(app, subscription: WebApp.subscriptionJSON(endpoint: answer.endpoint, keys: app.keys)))
                // The user removed the permission while the device was away, and the push service wants to hear of it.
                if mustUnsubscribe { try await unsubscribe(app, subscriber: subscriber) }
            } catch let error as DeviceLinkError {
                onEvent(.serverError(error))
            }
        }
    }

    /// The user removes a web app's permission for notifications (the `removePermission` interaction,
    /// ``WebApp/removePermission()``); the push service hears of it when it asked to (`web-push-unsubscribe`), now when
    /// the link is open, else on the next connection.
    public func removePermission(of app: WebApp) async throws {
        guard await app.removePermission(), let client = state.withLock({ $0.client }) else { return }
        try await unsubscribe(app, subscriber: client)
    }

    /// Tells the push service that a web app's subscription ended (`web-push-unsubscribe`): pushes to its endpoint then
    /// get `410`. A broken link leaves it for the next connection, which tells it again.
    private func unsubscribe(_ app: WebApp, subscriber: some WebPushSubscriber) async throws {
        do {
            try await subscriber.unsubscribeWebPush(token: app.subscriptionID)
        } catch let error as DeviceLinkError where error.code == .notRegistered {
            // Ended already.
        }
        onEvent(.webPushRevoked(app))
    }

    /// Runs one delivered message through its web app and returns the reports; a revocation is told to the push
    /// service (`web-push-unsubscribe`), so pushes to the endpoint then get `410`.
    func deliver(_ notification: DeviceLinkNotification, to app: WebApp, subscriber: some WebPushSubscriber) async -> [DeviceReport] {
        let delivery = await app.receive(notification)
        if delivery.revoked {
            do {
                try await subscriber.unsubscribeWebPush(token: app.subscriptionID)
            } catch let error as DeviceLinkError where error.code != .notRegistered {
                onEvent(.serverError(error))
            } catch {
                // The link closed: the push service keeps the subscription until the device says otherwise, and
                // the revoked app is not subscribed again on the next connection.
            }
            onEvent(.webPushRevoked(app))
        }
        return delivery.reports
    }
}
