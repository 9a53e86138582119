import Foundation
import HeraldCore
import HeraldDeviceHost
import HeraldDeviceLink
import HeraldSimulator
import HeraldStore
import HeraldUserNotifications

extension HeraldTestServer {
    /// Adds a device that hosts the apps of `manifest`, connects it over the device link and returns once every app
    /// is registered (or fails after `timeout`: 30 s by default, as a test suite that starts dozens of servers at once
    /// on a busy 2-core machine has been seen to need more than 10).
    ///
    /// - Parameters:
    ///   - code: Swift code for manifest entries that name it (service and content extensions, app delegates).
    ///   - clock: the device's clock (the 30 s extension budget, triggers).
    public func addDevice(
        manifest: DeviceManifest,
        code: InProcessCode = InProcessCode(),
        clock: any NotificationClock = SystemNotificationClock(),
        timeout: Duration = .seconds(30)
    ) async throws -> TestDevice {
        let credentials = try await server.store.addDevice(name: manifest.name)
        let simulated = try await SimulatedDevice(manifest: manifest, clock: clock, code: code)
        var link = DeviceLinkClient.Configuration(host: "127.0.0.1", port: webPort)
        link.path = "/device-link"
        var configuration = LinkedDevice.Configuration(link: link, hello: .device(id: credentials.device.id, secret: credentials.secret))
        configuration.maximumBackoff = .seconds(1)
        let log = DeviceReportLog()
        let linked = LinkedDevice(device: simulated, configuration: configuration, onEvent: log.record)
        devices.start(linked)
        let expected = Set(manifest.apps.map(\.bundleID))
        let tokens: [String: DeviceToken] = try await poll(within: timeout) {
            "device '\(manifest.name)' did not register \(expected.sorted()) on the device link within \(timeout)"
                + " (registered: \(linked.tokens.keys.sorted()))"
        } check: {
            let tokens = linked.tokens
            return linked.isConnected && Set(tokens.keys).isSuperset(of: expected) ? tokens : nil
        }
        return TestDevice(id: credentials.device.id, linked: linked, tokens: tokens, log: log)
    }

    /// Adds a device with these apps (authorized, not running, in ``Options/environment``), as
    /// ``addDevice(manifest:code:clock:timeout:)`` does.
    public func addDevice(
        named name: String = "Test iPhone",
        apps bundleIDs: [String],
        timeout: Duration = .seconds(30)
    ) async throws -> TestDevice {
        let environment = server.configuration.gateway.environment
        let manifest = DeviceManifest(name: name, apps: bundleIDs.map { AppManifest(bundleID: $0, environment: environment) })
        return try await addDevice(manifest: manifest, timeout: timeout)
    }

    /// Issues a device token for an app on a device that never connects (a phone that is switched off): what is
    /// sent to it waits, is replaced or expires, as the trace tells.
    public func offlineToken(for bundleID: String, environment: APNSEnvironment? = nil) async throws -> String {
        let environment = environment ?? server.configuration.gateway.environment
        return try await server.store.registerToken(bundleID: bundleID, environment: environment, deviceID: nil).hex
    }
}
