import Foundation
import HeraldCore
import HeraldDeviceLink
import HeraldSimulator
import HeraldUserNotifications
import Synchronization

/// The life of `herald device`: connect, say hello, register the apps, run what arrives through the simulated
/// device, report back; reconnect with backoff when the link closes.
struct DeviceLinkLoop: Sendable {
    var endpoint: DeviceLinkEndpoint
    var hello: DeviceLinkHello
    var apps: [(bundleID: String, environment: APNSEnvironment)]
    var device: SimulatedDevice
    var output: DeviceOutput
    var maximumBackoff: Double

    /// Runs until the process is stopped, or fails when the server refuses the device.
    func run() async throws {
        var hello = self.hello
        var backoff = 0.2
        let seen = SeenNotifications()
        while true {
            do {
                hello = try await session(hello, seen: seen) { backoff = 0.2 }
                output.status("link closed; reconnecting")
            } catch let error as DeviceLinkError where error.code == .unauthorized || error.code == .enrolmentDisabled {
                throw CLIFailure("the server refused the device: \(error.message)")
            } catch let error as CLIFailure {
                throw error
            } catch {
                output.status("cannot reach \(endpoint.host):\(endpoint.port): \(error); retrying in \(String(format: "%.1f", backoff)) s")
            }
            // Jitter, so that many devices do not reconnect in step after a restart.
            let delay = backoff * Double.random(in: 0.5...1.0)
            try await Task.sleep(for: .milliseconds(Int(delay * 1000)))
            backoff = min(backoff * 2, maximumBackoff)
        }
    }

    /// One connection; returns the hello to use next time (an enrolled device comes back with its id and secret).
    private func session(_ hello: DeviceLinkHello, seen: SeenNotifications, connected: () -> Void) async throws -> DeviceLinkHello {
        var configuration = DeviceLinkClient.Configuration(host: endpoint.host, port: endpoint.port)
        configuration.path = endpoint.path
        let client = try await DeviceLinkClient.connect(configuration: configuration)
        var next = hello
        do {
            let welcome = try await client.hello(hello)
            connected()
            if let secret = welcome.secret {
                next = .device(id: welcome.deviceID, secret: secret)
                output.enrolled(welcome, secret: secret)
            } else {
                output.connected(welcome)
            }
            for app in apps {
                output.registered(try await client.register(bundleID: app.bundleID, environment: app.environment))
            }
        } catch {
            await client.close()
            throw error
        }
        await withDiscardingTaskGroup { tasks in
            for await message in client.messages {
                switch message {
                case .notification(let notification):
                    // Acknowledged on receipt: the device has it. Duplicates (a resend after a reconnect) are
                    // acknowledged again and dropped by the device, never shown twice.
                    client.acknowledge(notification.apnsID)
                    let isFirst = seen.insert(notification.apnsID)
                    if isFirst { output.notification(notification) }
                    tasks.addTask {
                        let reports = await device.receive(IncomingNotification(notification))
                        for report in reports {
                            if let linkReport = DeviceLinkReport(report) { client.report(linkReport) }
                            output.report(report)
                        }
                    }
                case .error(let error):
                    output.status("server error \(error.code): \(error.message)")
                case .welcome, .registered, .unregistered:
                    break
                }
            }
        }
        return next
    }
}

/// The apns-ids a device has shown, so a resend is not printed twice (bounded: the newest 10,000).
final class SeenNotifications: Sendable {
    private let state = Mutex<(set: Set<NotificationID>, order: [NotificationID])>(([], []))

    /// Records `id`; `true` the first time.
    func insert(_ id: NotificationID) -> Bool {
        state.withLock { state in
            guard state.set.insert(id).inserted else { return false }
            state.order.append(id)
            if state.order.count > 10_000 {
                state.set.remove(state.order.removeFirst())
            }
            return true
        }
    }
}

extension IncomingNotification {
    /// The notification as the device link delivered it.
    init(_ notification: DeviceLinkNotification) {
        self.init(
            apnsID: notification.apnsID,
            bundleID: notification.bundleID,
            collapseID: notification.collapseID,
            pushType: notification.pushType,
            priority: notification.priority,
            payload: notification.payload
        )
    }
}

extension DeviceLinkReport {
    /// The link's form of a simulated device's report; `nil` for a report about no notification in particular.
    init?(_ report: HeraldSimulator.DeviceReport) {
        guard let apnsID = report.apnsID else { return nil }
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
        var detail = report.detail
        if let identifier = report.notificationIdentifier { detail["identifier"] = .string(identifier) }
        let bytes = (try? encoder.encode(detail)).map(Array.init)
        self.init(
            apnsID: apnsID,
            event: DeviceLinkReportEvent(rawValue: report.event.rawValue),
            detail: bytes
        )
    }
}
