import Foundation
import HeraldCore
import HeraldDeviceHost
import HeraldDeviceLink
import HeraldSimulator
import Synchronization

/// The life of `herald device`: a ``LinkedDevice`` whose events are printed.
struct DeviceLinkLoop: Sendable {
    /// The device link's addresses: the first, then the others in turn after a connection fails or closes.
    var endpoints: [DeviceLinkEndpoint]
    var hello: DeviceLinkHello
    var device: SimulatedDevice
    var output: DeviceOutput
    /// The device's web apps (`--web-app`).
    var webApps: [WebApp] = []
    /// Where their subscriptions are kept; a revoked one is forgotten there.
    var keyring: WebAppKeyring?
    var maximumBackoff: Double
    /// Said after the server's reason when it refuses the device's credentials.
    var refusalHint: String?

    /// Runs until the process is stopped, or fails when the server refuses the device or another connection with its
    /// credentials replaces its link.
    func run() async throws {
        let links = endpoints.map { endpoint in
            var link = DeviceLinkClient.Configuration(host: endpoint.host, port: endpoint.port)
            link.path = endpoint.path
            return link
        }
        var configuration = LinkedDevice.Configuration(link: links[0], hello: hello)
        configuration.otherLinks = Array(links.dropFirst())
        configuration.maximumBackoff = .milliseconds(Int64(maximumBackoff * 1000))
        let output = self.output
        let endpoint = self.endpoints[0]
        let notice = UnreachableNotice()
        let keyring = self.keyring
        let linked = LinkedDevice(device: device, configuration: configuration, webApps: webApps) { event in
            if case .webPushRevoked(let app) = event {
                do {
                    try keyring?.forget(origin: app.origin, applicationServerKey: app.applicationServerKey.base64URL)
                } catch {
                    output.status("\(error)")
                }
            }
            output.show(event, endpoint: endpoint, notice: notice)
        }
        do {
            try await linked.run()
        } catch let error as DeviceLinkError {
            let hint = error.code == .unauthorized ? refusalHint.map { " (\($0))" } ?? "" : ""
            let servers = endpoints.map(\.url).joined(separator: ", ")
            throw CLIFailure("the server at \(servers) refused the device: \(error.message)\(hint)")
        } catch let error as DeviceLinkClientError where error == .replaced {
            // Reconnecting would close the other link in turn (docs/device-link.md, "hello").
            throw CLIFailure("another connection with this device's id and secret replaced this one; stopping")
        }
    }
}

extension DeviceOutput {
    /// Prints one event of the linked device; a server that cannot be reached is one hint until the device connects.
    func show(_ event: LinkedDeviceEvent, endpoint: DeviceLinkEndpoint, notice: UnreachableNotice) {
        switch event {
        case .connected(let welcome):
            notice.reset()
            connected(welcome)
        case .enrolled(let welcome, let secret):
            notice.reset()
            enrolled(welcome, secret: secret)
        case .registered(let registration): registered(registration)
        case .notification(let notification): self.notification(notification)
        case .broadcast(let broadcast): self.broadcast(broadcast)
        case .channelSubscription(let subscription, let subscribed):
            let what = subscribed ? "subscribed to" : "unsubscribed from"
            status("\(subscription.bundleID) \(what) channel \(subscription.channelID)")
        case .activityToken(let token, let registered): activityToken(token, registered: registered)
        case .report(let report): self.report(report)
        case .webPushSubscribed(_, let subscription):
            // What a page sends its server: once per process, not again at each reconnection (the same endpoint).
            if notice.isFirstSubscription(subscription) { write(subscription) }
        case .webPushRevoked(let app): status("\(app.origin): the subscription was revoked (its pushes showed no notification); stopping its pushes")
        case .serverError(let error): status("server error \(error.code): \(error.message)")
        case .interacted(let interaction, let error):
            let target = [interaction.identifier, interaction.action, interaction.state].compactMap { $0 }.joined(separator: " ")
            let what = "console: \(interaction.kind) \(target) in \(interaction.bundleID)"
            status(error.map { "\(what) refused: \($0)" } ?? what)
        case .linkClosed: status("link closed; reconnecting")
        case .unreachable(let error as DeviceLinkError, let wait) where error.code == .deviceOffline:
            // A fault rule keeps the device offline (docs/faults.md): the server is there and says when to come back.
            status("server error \(error.code): \(error.message); trying again in \(wait)")
        case .unreachable:
            // The device keeps retrying (with backoff); saying so at every attempt would bury the hint.
            guard notice.isFirstSinceConnected() else { return }
            status(
                "cannot reach \(endpoint.url) (is `herald serve` running? --server takes the devices: URL of its banner); retrying until it answers"
            )
        }
    }
}

/// Whether `herald device` already said that the server cannot be reached, since it was last connected.
final class UnreachableNotice: Sendable {
    private let shown = Mutex(false)

    /// `true` the first time after creation or ``reset()``; `false` after that.
    func isFirstSinceConnected() -> Bool {
        shown.withLock { shown in
            defer { shown = true }
            return !shown
        }
    }

    /// The device connected: the next outage gets its hint again.
    func reset() {
        shown.withLock { $0 = false }
    }

    private let subscriptions = Mutex<Set<String>>([])

    /// `true` the first time a web app's subscription (its `toJSON()`) is told; `false` when it was already.
    func isFirstSubscription(_ subscription: String) -> Bool {
        subscriptions.withLock { $0.insert(subscription).inserted }
    }
}
