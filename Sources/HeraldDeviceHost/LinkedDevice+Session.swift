import Foundation
import HeraldCore
import HeraldDeviceLink
import HeraldSimulator

extension LinkedDevice {
    /// One connection; returns the hello to use next time (an enrolled device comes back with its id and secret).
    func session(_ hello: DeviceLinkHello, seen: SeenNotifications, connected: () -> Void) async throws -> DeviceLinkHello {
        let client = try await DeviceLinkClient.connect(configuration: configuration.link)
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
        } catch {
            _ = await client.close()
            throw error
        }
        state.withLock { $0.client = client }
        let device = self.device
        let onEvent = self.onEvent
        await withDiscardingTaskGroup { tasks in
            // One queue per app: its notifications run one at a time in arrival order and their reports go out in
            // that order (a `removed` report about an earlier notification never precedes that one's `displayed`);
            // apps do not wait for one another.
            var queues: [String: AsyncStream<DeviceLinkNotification>.Continuation] = [:]
            for await message in client.messages {
                switch message {
                case .notification(let notification):
                    // Acknowledged on receipt: the device has it. Duplicates (a resend after a reconnect) are
                    // acknowledged again and dropped by the device, never shown twice.
                    client.acknowledge(notification.apnsID)
                    if seen.insert(notification.apnsID) { onEvent(.notification(notification)) }
                    if queues[notification.bundleID] == nil {
                        let (queue, input) = AsyncStream.makeStream(of: DeviceLinkNotification.self)
                        queues[notification.bundleID] = input
                        tasks.addTask {
                            for await notification in queue {
                                let reports = await device.receive(IncomingNotification(notification))
                                for report in reports {
                                    if let linkReport = DeviceLinkReport(report) { client.report(linkReport) }
                                    onEvent(.report(report))
                                }
                            }
                        }
                    }
                    queues[notification.bundleID]?.yield(notification)
                case .error(let error):
                    onEvent(.serverError(error))
                case .welcome, .registered, .unregistered:
                    break
                }
            }
            for input in queues.values { input.finish() }
        }
        state.withLock { $0.client = nil }
        if Task.isCancelled { _ = await client.close() }
        return next
    }

    /// Sends reports on the open link (when there is one) and tells them as events.
    func deliver(_ reports: [DeviceReport]) {
        let client = state.withLock { $0.client }
        for report in reports {
            if let linkReport = DeviceLinkReport(report) { client?.report(linkReport) }
            onEvent(.report(report))
        }
    }
}
