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
        try await addDevice(manifest: manifest, code: code, clock: clock, webApps: [], timeout: timeout)
    }

    /// ``addDevice(manifest:code:clock:timeout:)`` with web apps too (docs/web-push.md): it returns once every app is
    /// registered and every web app subscribed.
    func addDevice(
        manifest: DeviceManifest,
        code: InProcessCode,
        clock: any NotificationClock,
        webApps configurations: [WebApp.Configuration],
        timeout: Duration
    ) async throws -> TestDevice {
        var webApps: [WebApp] = []
        for configuration in configurations {
            do {
                webApps.append(try WebApp(configuration: configuration))
            } catch {
                throw HeraldExpectationFailure(error.description)
            }
        }
        let credentials = try await server.store.addDevice(name: manifest.name)
        let simulated = try await SimulatedDevice(manifest: manifest, clock: clock, code: code)
        var link = DeviceLinkClient.Configuration(host: "127.0.0.1", port: webPort)
        link.path = "/device-link"
        var configuration = LinkedDevice.Configuration(link: link, hello: .device(id: credentials.device.id, secret: credentials.secret))
        configuration.maximumBackoff = .seconds(1)
        let log = DeviceReportLog()
        let linked = LinkedDevice(device: simulated, configuration: configuration, webApps: webApps, onEvent: log.record)
        devices.start(linked)
        let expected = Set(manifest.apps.map(\.bundleID))
        let (tokens, endpoints): ([String: DeviceToken], [String]) = try await poll(within: timeout) {
            var subscribed: [String] = []
            for app in webApps where await app.endpoint != nil { subscribed.append(app.origin) }
            return "device '\(manifest.name)' did not register \(expected.sorted()) and subscribe \(webApps.map(\.origin))"
                + " on the device link within \(timeout) (registered: \(linked.tokens.keys.sorted()); subscribed: \(subscribed))"
        } check: {
            let tokens = linked.tokens
            // A web app is subscribed before the connection counts as open, so its endpoint is known by then.
            guard linked.isConnected, Set(tokens.keys).isSuperset(of: expected) else { return nil }
            var endpoints: [String] = []
            for app in webApps {
                guard let endpoint = await app.endpoint else { return nil }
                endpoints.append(endpoint)
            }
            return (tokens, endpoints)
        }
        let testWebApps = zip(webApps, endpoints).map { TestWebApp(app: $0, endpoint: $1, linked: linked, log: log) }
        return TestDevice(id: credentials.device.id, linked: linked, tokens: tokens, log: log, webApps: testWebApps)
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
