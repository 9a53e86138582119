import Foundation
import HeraldCore
import HeraldSimulator
import HeraldUserNotifications

extension TestDevice {
    /// Every report the device made so far — what it did with each notification (`modified`, `displayed`,
    /// `dropped`, `background`, `removed`) and with each interaction (`action`, `dismissed`, `expanded`, `media`) —
    /// oldest first. Reports that name a notification were also sent on the link, into its trace.
    public var reports: [DeviceReport] { log.all }

    /// The reports about one notification, oldest first (a `removed` report names the notification that left).
    public func reports(for apnsID: String) -> [DeviceReport] {
        guard let id = NotificationID(apnsID) else { return [] }
        return log.all.filter { $0.apnsID == id }
    }

    /// Waits until the device reports `event` about a notification, and returns the first such report: what the
    /// device did with it (`displayed`, `modified`, `dropped`, …) and the callbacks the app got (`background`,
    /// `action`).
    ///
    /// - Throws: ``HeraldExpectationFailure`` after `timeout`, listing the reports made about it instead.
    @discardableResult
    public func expectReport(_ event: DeviceReport.Event, for apnsID: String, within timeout: Duration = .seconds(5)) async throws -> DeviceReport {
        guard NotificationID(apnsID) != nil else {
            throw HeraldExpectationFailure("'\(apnsID)' is not an apns-id (a UUID)")
        }
        return try await poll(within: timeout) {
            let seen = self.reports(for: apnsID).map(\.event.rawValue)
            return "device '\(self.name)' made no \(event) report about \(apnsID) within \(timeout)"
                + (seen.isEmpty ? " (it made none about it)" : " (it reported \(seen.joined(separator: ", ")))")
        } check: {
            self.reports(for: apnsID).first { $0.event == event }
        }
    }

    /// What an app shows now: its state, notification center, badge, categories and expanded content extension.
    ///
    /// - Throws: ``HeraldExpectationFailure`` when the device has no such app.
    public func app(_ bundleID: String) async throws -> AppSnapshot {
        guard let app = await snapshot().apps.first(where: { $0.bundleID == bundleID }) else {
            throw HeraldExpectationFailure("device '\(name)' has no app \(bundleID) (apps: \(tokens.keys.sorted()))")
        }
        return app
    }

    /// Every callback the app's code received so far, in order (`application(_:didReceiveRemoteNotification:…)`,
    /// `userNotificationCenter(_:willPresent:…)`, the service extension's, …), launch included.
    ///
    /// - Throws: ``HeraldExpectationFailure`` when the device has no such app.
    public func callbacks(in bundleID: String) async throws -> [AppCall] {
        guard let runtime = await simulated.runtime(for: bundleID) else {
            throw HeraldExpectationFailure("device '\(name)' has no app \(bundleID) (apps: \(tokens.keys.sorted()))")
        }
        return await runtime.appCalls
    }

    /// Waits until the app's notification center, as a whole (newest thread first), satisfies `holds` — e.g. "lists
    /// exactly these bodies" — and returns what it lists.
    ///
    /// - Parameter description: how the expected center is described in the failure message.
    /// - Throws: ``HeraldExpectationFailure`` after `timeout`, listing what the center showed instead.
    @discardableResult
    public func expectNotificationCenter(
        in bundleID: String,
        within timeout: Duration = .seconds(5),
        _ description: String = "as expected",
        where holds: @Sendable ([NotificationCenterSnapshot.Notification]) -> Bool
    ) async throws -> [NotificationCenterSnapshot.Notification] {
        _ = try token(for: bundleID)
        return try await poll(within: timeout) {
            await "device '\(self.name)': \(bundleID)'s notification center is not \(description) within \(timeout)"
                + self.listing(bundleID)
        } check: {
            let shown = await self.notifications(in: bundleID)
            return holds(shown) ? shown : nil
        }
    }

    /// Waits until the app's notification center no longer lists a notification with this request identifier
    /// (its `apns-collapse-id`, else its `apns-id`): opened, dismissed or removed.
    ///
    /// - Throws: ``HeraldExpectationFailure`` after `timeout`, listing what the center showed instead.
    public func expectNotificationRemoved(_ identifier: String, in bundleID: String, within timeout: Duration = .seconds(5)) async throws {
        try await expectNotificationCenter(in: bundleID, within: timeout, "without \(identifier)") { shown in
            !shown.contains { $0.identifier == identifier }
        }
    }

    func listing(_ bundleID: String) async -> String {
        let shown = await notifications(in: bundleID).map { "\($0.identifier): \"\($0.title)\" \"\($0.body)\"" }
        return shown.isEmpty ? " (it shows none)" : " (it shows \(shown.joined(separator: "; ")))"
    }
}
