import HeraldDeviceHost
import HeraldSimulator
import HeraldUserNotifications

extension HeraldTestServer {
    /// Adds a device holding these web apps (and iOS apps, authorized, not running), connects it over the device link
    /// and returns once every app is registered and every web app subscribed: its ``TestDevice/webApps`` have their
    /// endpoints (docs/web-push.md, "The browser side").
    ///
    /// - Parameter name: the device's name; by default "Test Mac" when every web app is Safari's, else "Test iPhone".
    /// - Throws: ``HeraldExpectationFailure`` for a web app whose origin or key cannot be used, or after `timeout`.
    public func addDevice(
        named name: String? = nil,
        apps bundleIDs: [String] = [],
        webApps: [WebApp.Configuration],
        timeout: Duration = .seconds(30)
    ) async throws -> TestDevice {
        // Only a Mac's Safari and an iPhone's (or iPad's) Home Screen take web push: the name says which it is.
        let name = name ?? (webApps.allSatisfy { $0.kind == .safari } ? "Test Mac" : "Test iPhone")
        let environment = server.configuration.gateway.environment
        let manifest = DeviceManifest(name: name, apps: bundleIDs.map { AppManifest(bundleID: $0, environment: environment) })
        return try await addDevice(manifest: manifest, code: InProcessCode(), clock: SystemNotificationClock(), webApps: webApps, timeout: timeout)
    }

    /// Adds a device holding one web app — a site in Safari on a Mac, or a Home Screen web app on an iPhone — and
    /// returns it once subscribed, as ``addDevice(named:apps:webApps:timeout:)`` does.
    ///
    /// - Parameters:
    ///   - origin: the site's origin, `https://host[:port]`.
    ///   - applicationServerKey: the site's VAPID public key, base64url (``WebPushSite/applicationServerKey``).
    ///   - serviceWorker: the path of the site's `sw.js`, run under Node for each push that is not a declarative
    ///     message; `nil` for a site that sends declarative messages only.
    /// - Throws: ``HeraldExpectationFailure`` for an origin or key that cannot be used, or after `timeout`.
    public func addWebApp(
        origin: String,
        applicationServerKey: String,
        kind: WebApp.Kind = .safari,
        serviceWorker: String? = nil,
        timeout: Duration = .seconds(30)
    ) async throws -> TestWebApp {
        let configuration = WebApp.Configuration(
            origin: origin,
            applicationServerKey: applicationServerKey,
            kind: kind,
            serviceWorkerPath: serviceWorker
        )
        let device = try await addDevice(webApps: [configuration], timeout: timeout)
        return device.webApps[0]
    }
}
