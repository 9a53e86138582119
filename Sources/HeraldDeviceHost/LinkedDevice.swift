import Foundation
import HeraldCore
import HeraldDeviceLink
import HeraldSimulator
import Synchronization

/// A ``SimulatedDevice`` on the device link: it says hello, registers its apps, runs each notification
/// that arrives through the device (acknowledging it first) and reports back what the device did;
/// it reconnects with backoff when the link closes.
///
/// `herald device` and the testing kit both run one. Nothing happens until ``run()``, which runs until its
/// task is cancelled or the server refuses the device. What happens is told to the `onEvent` handler, in
/// order, from the task that runs the device.
public final class LinkedDevice: Sendable {
    /// Where and how to connect.
    public struct Configuration: Sendable {
        /// The device link's address and timeouts.
        public var link: DeviceLinkClient.Configuration
        /// Other nodes' device links (a cluster, docs/cluster.md): after a connection fails or closes, the device tries
        /// the next address, in turn, ``link`` first.
        public var otherLinks: [DeviceLinkClient.Configuration] = []
        /// The first `hello`: a known device (`id` and `secret`) or an enrolment.
        public var hello: DeviceLinkHello
        /// The longest wait between reconnection attempts.
        public var maximumBackoff: Duration = .seconds(5)
        /// The first wait after a failed or closed connection; doubled at each failure up to ``maximumBackoff``.
        public var initialBackoff: Duration = .milliseconds(200)

        /// Creates a configuration with the default backoff (0.2 s doubling to 5 s).
        public init(link: DeviceLinkClient.Configuration, hello: DeviceLinkHello) {
            self.link = link
            self.hello = hello
        }
    }

    /// The device the link feeds.
    public let device: SimulatedDevice
    /// Where and how it connects.
    public let configuration: Configuration
    /// The device's web apps (docs/web-push.md, "The browser side"): each is subscribed on every connection, and the
    /// notifications sent to its subscription go to it rather than to ``device``.
    public let webApps: [WebApp]
    let onEvent: @Sendable (LinkedDeviceEvent) -> Void
    let state = Mutex(LinkState())

    /// Creates a linked device; nothing connects until ``run()``.
    ///
    /// - Parameters:
    ///   - device: the device; every app of its manifest is registered on each connection.
    ///   - webApps: the device's web apps, subscribed on each connection after the apps are registered.
    ///   - onEvent: told of each event, in order; must return quickly.
    public init(
        device: SimulatedDevice,
        configuration: Configuration,
        webApps: [WebApp] = [],
        onEvent: @escaping @Sendable (LinkedDeviceEvent) -> Void = { _ in }
    ) {
        self.device = device
        self.configuration = configuration
        self.webApps = webApps
        self.onEvent = onEvent
    }

    /// The token each app was given at its latest registration, by bundle id (empty before the first).
    public var tokens: [String: DeviceToken] {
        state.withLock { $0.tokens }
    }

    /// The Live Activity tokens the server has registered for this device (push-to-start and activity tokens).
    public var activityTokens: [SimulatedActivityToken] {
        state.withLock { Array($0.activityTokens.values) }
    }

    /// The broadcast channels the current connection subscribes to.
    public var channelSubscriptions: [SimulatedChannelSubscription] {
        state.withLock { Array($0.channelSubscriptions) }
    }

    /// The device id the server knows it by, once it said `welcome`.
    public var deviceID: String? {
        state.withLock { $0.deviceID }
    }

    /// Whether a connection is open and every app is registered on it.
    public var isConnected: Bool {
        state.withLock { $0.client != nil }
    }

    /// Runs the device until the task is cancelled.
    ///
    /// - Throws: the server's ``DeviceLinkError`` when it refuses the device (`unauthorized`,
    ///   `enrolment-disabled`); ``DeviceLinkClientError/replaced`` when the device connected elsewhere with the same
    ///   credentials; `CancellationError` when cancelled.
    public func run() async throws {
        var hello = configuration.hello
        var backoff = configuration.initialBackoff
        let seen = SeenNotifications()
        let links = [configuration.link] + configuration.otherLinks
        var next = 0
        while true {
            let link = links[next % links.count]
            // Whatever ends this connection, the next attempt goes to the next address (the same one when there is one).
            next += 1
            do {
                hello = try await session(hello, link: link, seen: seen) { backoff = configuration.initialBackoff }
                onEvent(.linkClosed)
            } catch let error as DeviceLinkError where error.code == .unauthorized || error.code == .enrolmentDisabled {
                throw error
            } catch let error as DeviceLinkClientError where error == .replaced {
                throw error
            } catch let error as DeviceLinkError where error.code == .deviceOffline {
                // A fault rule keeps the device offline (docs/faults.md): come back when the server said, or after the
                // longest backoff if that is sooner (the server's clock may jump, as a test's does; it refuses again
                // while the window lasts).
                let said = Duration.milliseconds(max(error.retryAfterMilliseconds ?? 0, 1)) + .milliseconds(50)
                let wait = min(said, configuration.maximumBackoff)
                onEvent(.unreachable(error, retryingIn: wait))
                try await Task.sleep(for: wait)
                backoff = configuration.initialBackoff
                continue
            } catch {
                try Task.checkCancellation()
                onEvent(.unreachable(error, retryingIn: backoff))
            }
            try Task.checkCancellation()
            // Jitter, so that many devices do not reconnect in step after a restart.
            try await Task.sleep(for: backoff * Double.random(in: 0.5...1.0))
            backoff = min(backoff * 2, configuration.maximumBackoff)
        }
    }
}

/// What a ``LinkedDevice`` did or saw, in order.
public enum LinkedDeviceEvent: Sendable {
    /// The server welcomed a known device.
    case connected(DeviceLinkWelcome)
    /// The server created the device; `secret` is shown only this once.
    case enrolled(DeviceLinkWelcome, secret: String)
    /// An app is registered and has this token.
    case registered(DeviceLinkRegistration)
    /// A notification arrived for the first time (resends after a reconnect are acknowledged, not told again).
    case notification(DeviceLinkNotification)
    /// A broadcast arrived on a channel the device's activities follow (its `displayed` or `dropped` report follows).
    case broadcast(DeviceLinkBroadcast)
    /// The server subscribed the device's app to a channel (`true`) or ended the subscription (`false`).
    case channelSubscription(SimulatedChannelSubscription, subscribed: Bool)
    /// The server registered a Live Activity token of the device (`true`: a type's push-to-start token, a new activity's
    /// token) or retired one (`false`: an activity dismissed, a push-to-start token rotated).
    case activityToken(SimulatedActivityToken, registered: Bool)
    /// What the device did with a notification or an interaction (also sent on the link when it names one).
    case report(DeviceReport)
    /// A web app is subscribed; `subscription` is its `PushSubscription.toJSON()`, what a page sends its server.
    case webPushSubscribed(WebApp, subscription: String)
    /// The device revoked a web app's subscription: too many of its pushes showed nothing (its `not-shown` report
    /// came first).
    case webPushRevoked(WebApp)
    /// The server sent an error frame.
    case serverError(DeviceLinkError)
    /// The device ran the web console's `interact` (its reports were told first), or refused it with `error`.
    case interacted(DeviceLinkInteraction, error: String?)
    /// The connection closed; the device reconnects.
    case linkClosed
    /// The server could not be reached or the session failed; the device tries again after the delay.
    case unreachable(any Error, retryingIn: Duration)
}

struct LinkState {
    var client: DeviceLinkClient?
    var screens: ScreenSender?
    var tokens: [String: DeviceToken] = [:]
    var activityTokens: [DeviceToken: SimulatedActivityToken] = [:]
    /// The channels the current connection subscribes to (a subscription lasts as long as its connection).
    var channelSubscriptions: Set<SimulatedChannelSubscription> = []
    var deviceID: String?
}
