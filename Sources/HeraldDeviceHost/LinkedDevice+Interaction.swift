import HeraldSimulator
import HeraldUserNotifications

extension LinkedDevice {
    /// The user taps a delivered notification (the default action); the reports go to the server.
    @discardableResult
    public func tap(_ identifier: String, in bundleID: String) async throws -> [DeviceReport] {
        let reports = try await device.tap(identifier, in: bundleID)
        deliver(reports)
        return reports
    }

    /// The user chooses an action button (with `text` for a text input action); the reports go to the server.
    @discardableResult
    public func perform(_ action: String, on identifier: String, in bundleID: String, text: String? = nil) async throws -> [DeviceReport] {
        let reports = try await device.perform(action, on: identifier, in: bundleID, text: text)
        deliver(reports)
        return reports
    }

    /// The user dismisses a delivered notification; the reports go to the server.
    @discardableResult
    public func dismiss(_ identifier: String, in bundleID: String) async throws -> [DeviceReport] {
        let reports = try await device.dismiss(identifier, in: bundleID)
        deliver(reports)
        return reports
    }

    /// The app moves to another state (foreground, background, …); the reports go to the server.
    @discardableResult
    public func setState(_ state: AppLifecycleState, in bundleID: String) async throws -> [DeviceReport] {
        let reports = try await device.setState(state, in: bundleID)
        deliver(reports)
        return reports
    }
}
