import HeraldCore
import Logging
import NIOCore
import NIOPosix
import NIOWebSocket

/// A device's end of the device link: a WebSocket client (docs/device-link.md).
///
/// ```swift
/// let client = try await DeviceLinkClient.connect(configuration: .init(host: "127.0.0.1", port: 2196))
/// let welcome = try await client.hello(.device(id: id, secret: secret))
/// let registration = try await client.register(bundleID: "com.example.app", environment: .sandbox)
/// for await message in client.messages {
///     if case .notification(let notification) = message { client.acknowledge(notification.apnsID) }
/// }
/// ```
///
/// Lean by design, so one process can hold thousands: a connection is a SwiftNIO channel and one handler,
/// with no thread or task of its own. Replies to ``hello(_:)``, ``register(bundleID:environment:)`` and
/// ``unregister(bundleID:environment:)`` are returned by those calls; every other frame — notifications,
/// errors about acks and reports — arrives on ``messages``. Pings are answered. `Sendable`: any task may use it.
public final class DeviceLinkClient: Sendable {
    /// The frames the server sent that no request was waiting for, in order; finishes when the link closes.
    ///
    /// Buffered without limit: iterate it (once) for as long as the link is open.
    public let messages: AsyncStream<DeviceLinkServerMessage>
    private let channel: any Channel
    private let handler: NIOLoopBound<DeviceLinkClientHandler>
    private let closedFuture: EventLoopFuture<DeviceLinkClosure>

    init(
        channel: any Channel,
        handler: NIOLoopBound<DeviceLinkClientHandler>,
        messages: AsyncStream<DeviceLinkServerMessage>,
        closed: EventLoopFuture<DeviceLinkClosure>
    ) {
        self.channel = channel
        self.handler = handler
        self.messages = messages
        self.closedFuture = closed
    }

    /// Authenticates (or enrols) the device; returns the server's `welcome`.
    ///
    /// Throws the server's ``DeviceLinkError`` when it refuses (`unauthorized` is followed by the server
    /// closing the link), or ``DeviceLinkClientError`` when no answer comes.
    @discardableResult
    public func hello(_ hello: DeviceLinkHello) async throws -> DeviceLinkWelcome {
        try await onLoop { $0.hello(hello) }
    }

    /// Registers an app and returns its device token (the same one on every connection until unregistered).
    public func register(bundleID: String, environment: APNSEnvironment) async throws -> DeviceLinkRegistration {
        let reply = try await onLoop { handler in
            handler.request { .register(DeviceLinkAppRequest(id: $0, bundleID: bundleID, environment: environment)) }
        }
        guard case .registered(let registration) = reply else { throw DeviceLinkClientError.unexpectedReply }
        return registration
    }

    /// Unregisters an app: its token stops working (providers get `410 Unregistered`); registering again
    /// issues a new token.
    public func unregister(bundleID: String, environment: APNSEnvironment) async throws -> DeviceLinkUnregistration {
        let reply = try await onLoop { handler in
            handler.request { .unregister(DeviceLinkAppRequest(id: $0, bundleID: bundleID, environment: environment)) }
        }
        guard case .unregistered(let unregistration) = reply else { throw DeviceLinkClientError.unexpectedReply }
        return unregistration
    }

    /// Registers a Live Activity token the device's ActivityKit made; providers may push to it once this returns.
    public func registerActivityToken(
        _ token: DeviceToken,
        kind: TokenKind,
        activityType: String,
        bundleID: String,
        environment: APNSEnvironment
    ) async throws -> DeviceLinkActivityTokenReply {
        let reply = try await onLoop { handler in
            handler.request {
                .activityToken(
                    DeviceLinkActivityToken(
                        id: $0,
                        bundleID: bundleID,
                        environment: environment,
                        kind: kind,
                        activityType: activityType,
                        token: token
                    )
                )
            }
        }
        guard case .activityTokenRegistered(let answer) = reply else { throw DeviceLinkClientError.unexpectedReply }
        return answer
    }

    /// Retires a Live Activity token (its activity ended and was dismissed, or it rotated): providers then get
    /// `410 Unregistered`.
    public func retireActivityToken(_ token: DeviceToken) async throws -> DeviceLinkActivityTokenReply {
        let reply = try await onLoop { handler in handler.request { .retireActivityToken(id: $0, token: token) } }
        guard case .activityTokenRetired(let answer) = reply else { throw DeviceLinkClientError.unexpectedReply }
        return answer
    }

    /// Subscribes the app's Live Activities to a broadcast channel: broadcasts on it arrive on ``messages`` (the
    /// channel's kept message, if it has one, right after the answer). Fails with the server's error
    /// (`unknown-channel`, `too-many-subscriptions`).
    public func subscribeChannel(_ channelID: String, bundleID: String, environment: APNSEnvironment) async throws -> DeviceLinkChannelReply {
        let reply = try await onLoop { handler in
            handler.request {
                .subscribeChannel(DeviceLinkChannelRequest(id: $0, bundleID: bundleID, environment: environment, channelID: channelID))
            }
        }
        guard case .channelSubscribed(let answer) = reply else { throw DeviceLinkClientError.unexpectedReply }
        return answer
    }

    /// Ends a subscription: no more broadcasts on the channel for this app.
    public func unsubscribeChannel(_ channelID: String, bundleID: String, environment: APNSEnvironment) async throws -> DeviceLinkChannelReply {
        let reply = try await onLoop { handler in
            handler.request {
                .unsubscribeChannel(DeviceLinkChannelRequest(id: $0, bundleID: bundleID, environment: environment, channelID: channelID))
            }
        }
        guard case .channelUnsubscribed(let answer) = reply else { throw DeviceLinkClientError.unexpectedReply }
        return answer
    }

    /// Registers a web app's push subscription and returns its endpoint, where the site's server sends (the Push API's
    /// `PushSubscription.endpoint`). Fails with the server's error (`invalid-origin`, `invalid-application-server-key`,
    /// `token-taken`, `too-many-tokens`).
    ///
    /// - Parameters:
    ///   - origin: The web app's origin, `https://host[:port]`.
    ///   - applicationServerKey: The VAPID public key the page subscribed with, in base64url.
    ///   - token: The subscription id, chosen by the device (``DeviceToken/random()``) and kept with the
    ///     subscription's keys.
    public func subscribeWebPush(origin: String, applicationServerKey: String, token: DeviceToken) async throws -> DeviceLinkWebPushSubscription {
        let reply = try await onLoop { handler in
            handler.request {
                .webPushSubscribe(
                    DeviceLinkWebPushSubscriptionRequest(id: $0, origin: origin, applicationServerKey: applicationServerKey, token: token)
                )
            }
        }
        guard case .webPushSubscribed(let answer) = reply else { throw DeviceLinkClientError.unexpectedReply }
        return answer
    }

    /// Ends a web app's push subscription (the page unsubscribed, or the browser revoked it): pushes to its endpoint then
    /// get `410 Unregistered`. Fails with `not-registered` when the device has no such active subscription.
    public func unsubscribeWebPush(token: DeviceToken) async throws {
        let reply = try await onLoop { handler in handler.request { .webPushUnsubscribe(id: $0, token: token) } }
        guard case .webPushUnsubscribed = reply else { throw DeviceLinkClientError.unexpectedReply }
    }

    /// Acknowledges a notification; an error about it, if any, arrives on ``messages``.
    public func acknowledge(_ apnsID: NotificationID) {
        sendWithoutWaiting(.ack(apnsID: apnsID))
    }

    /// Reports what became of a notification on the device.
    public func report(_ report: DeviceLinkReport) {
        sendWithoutWaiting(.report(report))
    }

    /// Sends any message and returns once it is written; its reply, if any, arrives on ``messages``.
    public func send(_ message: DeviceLinkClientMessage) async throws {
        try await onLoop { $0.send(message) }
    }

    /// Sends a text frame exactly as given — for testing how a server handles frames a real device would not send.
    public func sendRawText(_ text: some Collection<UInt8>) async throws {
        let bytes = Array(text)
        try await onLoop { $0.sendText(bytes) }
    }

    /// Sends a WebSocket ping and returns when the server's pong arrives (a liveness check).
    public func ping() async throws {
        try await onLoop { $0.ping() }
    }

    /// Closes the link (WebSocket code 1000) and returns how it ended, waiting at most `timeout` for the server.
    @discardableResult
    public func close(timeout: TimeAmount = .seconds(5)) async -> DeviceLinkClosure {
        let handler = self.handler
        let channel = self.channel
        channel.eventLoop.execute { handler.value.close(code: .normalClosure) }
        let forceClose = channel.eventLoop.scheduleTask(in: timeout) { channel.close(promise: nil) }
        let closure = await closed()
        forceClose.cancel()
        return closure
    }

    /// Waits until the link is closed, by either side, and returns how it ended.
    public func closed() async -> DeviceLinkClosure {
        (try? await closedFuture.get()) ?? DeviceLinkClosure(code: nil, reason: nil)
    }

    private func sendWithoutWaiting(_ message: DeviceLinkClientMessage) {
        let handler = self.handler
        channel.eventLoop.execute { _ = handler.value.send(message) }
    }

    private func onLoop<Value: Sendable>(
        _ body: @escaping @Sendable (DeviceLinkClientHandler) -> EventLoopFuture<Value>
    ) async throws -> Value {
        let handler = self.handler
        return try await channel.eventLoop.flatSubmit { body(handler.value) }.get()
    }
}
