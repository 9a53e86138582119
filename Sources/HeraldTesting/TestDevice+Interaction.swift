import HeraldSimulator
import HeraldUserNotifications

extension TestDevice {
    /// The user long-presses a notification: its content extension (if any) draws the expanded interface. The
    /// `expanded` report lands in the trace.
    @discardableResult
    public func expand(_ identifier: String, in bundleID: String) async throws -> [DeviceReport] {
        let reports = try await simulated.expand(identifier, in: bundleID)
        linked.sendReports(reports)
        return reports
    }

    /// The user presses the expanded interface's media play/pause button. The `media` report (`playing`, the
    /// callback `mediaPlay()` or `mediaPause()`) lands in the trace.
    @discardableResult
    public func playPause(in bundleID: String) async throws -> [DeviceReport] {
        let reports = try await simulated.playPause(in: bundleID)
        linked.sendReports(reports)
        return reports
    }

    /// The user closes the expanded interface.
    public func collapse(in bundleID: String) async throws {
        try await simulated.collapse(in: bundleID)
    }

    /// The app moves to another state as the user and the system would (opening it delivers a held background
    /// push: its `background` report lands in that push's trace).
    @discardableResult
    public func setState(_ state: AppLifecycleState, in bundleID: String) async throws -> [DeviceReport] {
        try await linked.setState(state, in: bundleID)
    }
}
