import Foundation
import HeraldCore
import HeraldDeviceHost
import HeraldDeviceLink
import HeraldSimulator
import HeraldUserNotifications

/// A simulated device connected to the test server, made by ``HeraldTestServer/addDevice(manifest:code:clock:timeout:)``.
public final class TestDevice: Sendable {
    /// The device id the server knows it by.
    public let id: String
    /// Each app's device token (hex), by bundle id: what a provider sends to.
    public let tokens: [String: String]
    /// The device on the link: user interactions made through it are reported to the server.
    public let linked: LinkedDevice

    /// The device's web apps, subscribed (``HeraldTestServer/addDevice(named:apps:webApps:timeout:)``).
    public let webApps: [TestWebApp]

    let log: DeviceReportLog

    init(id: String, linked: LinkedDevice, tokens: [String: DeviceToken], log: DeviceReportLog, webApps: [TestWebApp] = []) {
        self.id = id
        self.linked = linked
        self.tokens = tokens.mapValues(\.hex)
        self.log = log
        self.webApps = webApps
    }

    /// The device's name.
    public var name: String { linked.device.name }

    /// The simulated device itself (its runtimes, for tests that drive an app directly).
    public var simulated: SimulatedDevice { linked.device }

    /// The device token (hex) of an installed app.
    ///
    /// - Throws: ``HeraldExpectationFailure`` when the device has no such app.
    public func token(for bundleID: String) throws -> String {
        guard let token = tokens[bundleID] else {
            throw HeraldExpectationFailure("device '\(name)' has no app \(bundleID) (apps: \(tokens.keys.sorted()))")
        }
        return token
    }

    /// The web app of a site, by its origin (`https://shop.example`).
    ///
    /// - Throws: ``HeraldExpectationFailure`` when the device has no web app of that origin.
    public func webApp(_ origin: String) throws -> TestWebApp {
        // Serialized as the web app serialized its own (lowercase, no default port).
        let wanted = DeviceLinkClientMessage.webPushOrigin(origin) ?? origin
        guard let app = webApps.first(where: { $0.origin == wanted }) else {
            throw HeraldExpectationFailure("device '\(name)' has no web app of \(origin) (web apps: \(webApps.map(\.origin)))")
        }
        return app
    }

    /// What every app shows now: state, notification center, badge, categories.
    public func snapshot() async -> DeviceSnapshot {
        await linked.device.snapshot()
    }

    /// The notifications an app's notification center shows now, newest thread first.
    public func notifications(in bundleID: String) async -> [NotificationCenterSnapshot.Notification] {
        let app = await snapshot().apps.first { $0.bundleID == bundleID }
        return app?.center.threads.flatMap(\.notifications) ?? []
    }

    /// Waits until the app's notification center shows a notification with this title, and returns it.
    ///
    /// - Throws: ``HeraldExpectationFailure`` after `timeout`, listing what the center showed instead.
    @discardableResult
    public func expectNotification(
        titled title: String,
        in bundleID: String,
        within timeout: Duration = .seconds(5)
    ) async throws -> NotificationCenterSnapshot.Notification {
        try await expectNotification(in: bundleID, within: timeout, "titled \"\(title)\"") { $0.title == title }
    }

    /// Waits until the app's notification center shows a notification that `matches`, and returns it.
    ///
    /// - Parameter description: how the expected notification is described in the failure message.
    /// - Throws: ``HeraldExpectationFailure`` after `timeout`, listing what the center showed instead.
    @discardableResult
    public func expectNotification(
        in bundleID: String,
        within timeout: Duration = .seconds(5),
        _ description: String = "matching",
        where matches: @Sendable (NotificationCenterSnapshot.Notification) -> Bool
    ) async throws -> NotificationCenterSnapshot.Notification {
        _ = try token(for: bundleID)
        return try await poll(within: timeout) {
            let shown = await self.notifications(in: bundleID).map { "\"\($0.title)\"" }
            return "device '\(name)': \(bundleID)'s notification center shows no notification \(description) within \(timeout)"
                + (shown.isEmpty ? " (it shows none)" : " (it shows \(shown.joined(separator: ", ")))")
        } check: {
            await self.notifications(in: bundleID).first(where: matches)
        }
    }

    /// Waits `timeout` and checks that the app's notification center still shows no notification with this title.
    ///
    /// - Throws: ``HeraldExpectationFailure`` as soon as one shows.
    public func expectNoNotification(titled title: String, in bundleID: String, during timeout: Duration = .milliseconds(500)) async throws {
        let clock = ContinuousClock()
        let deadline = clock.now + timeout
        while clock.now < deadline {
            if await notifications(in: bundleID).contains(where: { $0.title == title }) {
                throw HeraldExpectationFailure("device '\(name)': \(bundleID)'s notification center shows \"\(title)\", which was not expected")
            }
            try await Task.sleep(for: .milliseconds(20))
        }
    }

    /// The user taps a delivered notification; the trace records the action.
    @discardableResult
    public func tap(_ identifier: String, in bundleID: String) async throws -> [DeviceReport] {
        try await linked.tap(identifier, in: bundleID)
    }

    /// The user chooses an action button (with `text` for a text input action); the trace records it.
    @discardableResult
    public func perform(_ action: String, on identifier: String, in bundleID: String, text: String? = nil) async throws -> [DeviceReport] {
        try await linked.perform(action, on: identifier, in: bundleID, text: text)
    }

    /// The user dismisses a delivered notification; the trace records it.
    @discardableResult
    public func dismiss(_ identifier: String, in bundleID: String) async throws -> [DeviceReport] {
        try await linked.dismiss(identifier, in: bundleID)
    }
}
