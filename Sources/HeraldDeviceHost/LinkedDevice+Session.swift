import Foundation
import HeraldCore
import HeraldDeviceLink
import HeraldSimulator
import HeraldUserNotifications

extension LinkedDevice {
    /// One connection; returns the hello to use next time (an enrolled device comes back with its id and secret).
    func session(
        _ hello: DeviceLinkHello,
        link: DeviceLinkClient.Configuration,
        seen: SeenNotifications,
        connected: () -> Void
    ) async throws -> DeviceLinkHello {
        let client = try await DeviceLinkClient.connect(configuration: link)
        var next = hello
        do {
            let welcome = try await client.hello(hello)
            connected()
            if let secret = welcome.secret {
                next = .device(id: welcome.deviceID, secret: secret)
                onEvent(.enrolled(welcome, secret: secret))
            } else {
                onEvent(.connected(welcome))
            }
            state.withLock { $0.deviceID = welcome.deviceID }
            for app in device.installedApps {
                let registration = try await client.register(bundleID: app.bundleID, environment: app.environment)
                state.withLock { $0.tokens[registration.bundleID] = registration.token }
                onEvent(.registered(registration))
            }
            await syncActivityTokens(client: client)
            // Subscriptions end with their connection: every one is made again on this one.
            state.withLock { $0.channelSubscriptions = [] }
            await syncChannelSubscriptions(client: client)
            try await subscribeWebApps(with: client)
        } catch {
            _ = await client.close()
            throw error
        }
        let screens = ScreenSender(device: device, client: client, webApps: webApps) { self.tokens }
        state.withLock {
            $0.client = client
            $0.screens = screens
        }
        let device = self.device
        let onEvent = self.onEvent
        await withDiscardingTaskGroup { tasks in
            tasks.addTask { await screens.run() }
            // The first screen follows the registrations.
            screens.request()
            // One queue per app: its notifications run one at a time in arrival order and their reports go out in
            // that order (a `removed` report about an earlier notification never precedes that one's `displayed`);
            // apps do not wait for one another.
            var queues: [String: AsyncStream<Incoming>.Continuation] = [:]
            func enqueue(_ incoming: Incoming, for bundleID: String) {
                if queues[bundleID] == nil {
                    let (queue, input) = AsyncStream.makeStream(of: Incoming.self)
                    queues[bundleID] = input
                    tasks.addTask {
                        for await incoming in queue {
                            let reports: [HeraldSimulator.DeviceReport]
                            switch incoming {
                            case .notification(let notification):
                                reports = await device.receive(IncomingNotification(notification))
                                // New activity tokens are registered before the reports go out, so that a provider
                                // that sees the push handled can push to them.
                                if notification.pushType == .liveactivity { await self.syncActivities(client: client) }
                            case .broadcast(let broadcast):
                                reports = await device.receiveBroadcast(IncomingBroadcast(broadcast))
                                await self.syncActivities(client: client)
                            case .webPush(let notification, let app):
                                reports = await self.deliver(notification, to: app, subscriber: client)
                            }
                            for report in reports {
                                // A broadcast's reports are told, not sent: they name no notification of the server.
                                if incoming.namesNotification, let linkReport = DeviceLinkReport(report) { client.report(linkReport) }
                                onEvent(.report(report))
                            }
                            screens.request()
                        }
                    }
                }
                queues[bundleID]?.yield(incoming)
            }
            for await message in client.messages {
                switch message {
                case .broadcast(let broadcast):
                    onEvent(.broadcast(broadcast))
                    enqueue(.broadcast(broadcast), for: broadcast.bundleID)
                case .notification(let notification):
                    // Acknowledged on receipt: the device has it. Duplicates (a resend after a reconnect: the same
                    // apns-id accepted at the same time) are acknowledged again and dropped by the device, never shown
                    // twice; a provider's reused apns-id is a new notification.
                    client.acknowledge(notification.apnsID)
                    let isNew = seen.insert(IncomingNotification(notification).deliveryKey)
                    if isNew { onEvent(.notification(notification)) }
                    // A web app's subscription: its own queue, apart from the iOS apps (docs/web-push.md); a resend is
                    // not shown twice.
                    if let app = webApp(for: notification.token) {
                        if isNew { enqueue(.webPush(notification, app), for: "web-app \(app.origin)") }
                    } else {
                        enqueue(.notification(notification), for: notification.bundleID)
                    }
                case .interact(let interaction):
                    tasks.addTask { await self.run(interaction, client: client, screens: screens) }
                case .error(let error):
                    onEvent(.serverError(error))
                case .welcome, .registered, .unregistered, .activityTokenRegistered, .activityTokenRetired, .channelSubscribed,
                    .channelUnsubscribed, .webPushSubscribed, .webPushUnsubscribed:
                    break
                }
            }
            for input in queues.values { input.finish() }
            screens.finish()
        }
        state.withLock {
            $0.client = nil
            $0.screens = nil
        }
        if Task.isCancelled { _ = await client.close() }
        // Another connection with the device's credentials took over; reconnecting would close that one in turn.
        if await client.closed().code == DeviceLinkClosure.replacedCode { throw DeviceLinkClientError.replaced }
        return next
    }

    /// Brings the server up to date with the device's Live Activities: their tokens and their channels.
    func syncActivities(client: DeviceLinkClient) async {
        await syncActivityTokens(client: client)
        await syncChannelSubscriptions(client: client)
    }

    /// Subscribes the channels the device's live activities follow and unsubscribes those none follows any more; a
    /// refusal (`unknown-channel`) is told as a server error and tried again at the next sync.
    func syncChannelSubscriptions(client: DeviceLinkClient) async {
        let current = Set(await device.channelSubscriptions())
        let subscribed = state.withLock { $0.channelSubscriptions }
        for subscription in current.subtracting(subscribed) {
            do {
                _ = try await client.subscribeChannel(subscription.channelID, bundleID: subscription.bundleID, environment: subscription.environment)
                state.withLock { _ = $0.channelSubscriptions.insert(subscription) }
                onEvent(.channelSubscription(subscription, subscribed: true))
            } catch let error as DeviceLinkError {
                onEvent(.serverError(error))
            } catch {
                return
            }
        }
        for subscription in subscribed.subtracting(current) {
            do {
                _ = try await client.unsubscribeChannel(
                    subscription.channelID,
                    bundleID: subscription.bundleID,
                    environment: subscription.environment
                )
            } catch let error as DeviceLinkError {
                onEvent(.serverError(error))
                continue
            } catch {
                return
            }
            state.withLock { _ = $0.channelSubscriptions.remove(subscription) }
            onEvent(.channelSubscription(subscription, subscribed: false))
        }
    }

    /// Registers the device's new Live Activity tokens and retires those that are gone (an activity dismissed, a
    /// token rotated); a refusal is told as a server error and tried again at the next sync.
    func syncActivityTokens(client: DeviceLinkClient) async {
        let current = await device.activityTokens()
        let registered = state.withLock { $0.activityTokens }
        for token in current where registered[token.token] == nil {
            do {
                _ = try await client.registerActivityToken(
                    token.token,
                    kind: token.kind,
                    activityType: token.activityType,
                    bundleID: token.bundleID,
                    environment: token.environment
                )
                state.withLock { $0.activityTokens[token.token] = token }
                onEvent(.activityToken(token, registered: true))
            } catch let error as DeviceLinkError {
                onEvent(.serverError(error))
            } catch {
                return
            }
        }
        let live = Set(current.map(\.token))
        for (token, retired) in registered where !live.contains(token) {
            do {
                _ = try await client.retireActivityToken(token)
            } catch let error as DeviceLinkError where error.code != .notRegistered {
                onEvent(.serverError(error))
                continue
            } catch let error as DeviceLinkError {
                _ = error
            } catch {
                return
            }
            state.withLock { $0.activityTokens[token] = nil }
            onEvent(.activityToken(retired, registered: false))
        }
    }

    /// Sends reports on the open link (when there is one) and tells them as events; then a fresh screen.
    func deliver(_ reports: [DeviceReport]) {
        let (client, screens) = state.withLock { ($0.client, $0.screens) }
        for report in reports {
            if let linkReport = DeviceLinkReport(report) { client?.report(linkReport) }
            onEvent(.report(report))
        }
        screens?.request()
    }

    /// Runs the console's `interact` through the device: its reports, then a fresh screen, then `interacted`.
    private func run(_ interaction: DeviceLinkInteraction, client: DeviceLinkClient, screens: ScreenSender) async {
        var failure: String?
        do {
            let reports = try await perform(interaction)
            for report in reports {
                if let linkReport = DeviceLinkReport(report) { client.report(linkReport) }
                onEvent(.report(report))
            }
        } catch let error as SimulatorError {
            failure = error.message
        } catch {
            failure = "\(error)"
        }
        await screens.requestAndWait()
        try? await client.send(.interacted(DeviceLinkInteractionResult(id: interaction.id, error: failure)))
        onEvent(.interacted(interaction, error: failure))
    }

    /// Does what the interaction asks through the simulated device.
    private func perform(_ interaction: DeviceLinkInteraction) async throws -> [DeviceReport] {
        let bundleID = interaction.bundleID
        func identifier() throws -> String {
            guard let identifier = interaction.identifier else {
                throw InteractionRequestError("\(interaction.kind) needs the notification's identifier")
            }
            return identifier
        }
        switch interaction.kind {
        case .tap:
            // A web app is named by its origin.
            if let app = webApp(origin: bundleID) { return [try await app.tap(try identifier())] }
            return try await device.tap(try identifier(), in: bundleID)
        case .action:
            guard let action = interaction.action else { throw InteractionRequestError("action needs the action identifier") }
            return try await device.perform(action, on: try identifier(), in: bundleID, text: interaction.text)
        case .dismiss:
            if let app = webApp(origin: bundleID) { return [try await app.dismiss(try identifier())] }
            return try await device.dismiss(try identifier(), in: bundleID)
        case .removePermission:
            guard let app = webApp(origin: bundleID) else {
                throw InteractionRequestError("removePermission is for a web app, named by its origin; the device has none at \(bundleID)")
            }
            try await removePermission(of: app)
            return []
        case .expand: return try await device.expand(try identifier(), in: bundleID)
        case .collapse:
            try await device.collapse(in: bundleID)
            return []
        case .playPause: return try await device.playPause(in: bundleID)
        case .setState:
            guard let text = interaction.state, let state = AppLifecycleState(rawValue: text) else {
                let known = AppLifecycleState.allCases.map(\.rawValue).joined(separator: ", ")
                throw InteractionRequestError("setState needs a state: one of \(known)")
            }
            return try await device.setState(state, in: bundleID)
        default:
            throw InteractionRequestError("unknown interaction \"\(interaction.kind)\"")
        }
    }
}

/// What one app's queue runs, in arrival order.
enum Incoming: Sendable {
    case notification(DeviceLinkNotification)
    case broadcast(DeviceLinkBroadcast)
    /// A message for a web app's subscription.
    case webPush(DeviceLinkNotification, WebApp)

    /// Whether its reports name a notification of the server (a broadcast's are told, not sent).
    var namesNotification: Bool {
        if case .broadcast = self { return false }
        return true
    }
}

extension IncomingBroadcast {
    init(_ broadcast: DeviceLinkBroadcast) {
        self.init(
            channelID: broadcast.channelID,
            bundleID: broadcast.bundleID,
            requestID: broadcast.requestID,
            priority: broadcast.priority,
            payload: broadcast.payload
        )
    }
}

/// An `interact` the device cannot run as asked (a member missing, an unknown kind or state).
struct InteractionRequestError: Error, CustomStringConvertible {
    let description: String

    init(_ description: String) {
        self.description = description
    }
}
