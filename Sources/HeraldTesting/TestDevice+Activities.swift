import Foundation
import HeraldActivityKit
import HeraldCore
import HeraldDeviceHost
import HeraldSimulator

extension TestDevice {
    /// The app's Live Activities on the lock screen now (active, stale, or ended and not yet dismissed), in start
    /// order.
    public func activities(in bundleID: String) async -> [ActivitySnapshot] {
        await simulated.activities(in: bundleID)
    }

    /// Waits until the app shows a Live Activity that `matches` — e.g. of a type, in a state, with some content — and
    /// returns it.
    ///
    /// - Parameter description: how the expected activity is described in the failure message.
    /// - Throws: ``HeraldExpectationFailure`` after `timeout`, listing the activities shown instead.
    @discardableResult
    public func expectActivity(
        in bundleID: String,
        within timeout: Duration = .seconds(5),
        _ description: String = "matching",
        where matches: @Sendable (ActivitySnapshot) -> Bool
    ) async throws -> ActivitySnapshot {
        _ = try token(for: bundleID)
        return try await poll(within: timeout) {
            await "device '\(self.name)': \(bundleID) shows no Live Activity \(description) within \(timeout)" + self.activityListing(bundleID)
        } check: {
            await self.activities(in: bundleID).first(where: matches)
        }
    }

    /// Waits until the app shows a Live Activity whose content state has `value` for the member `key` (compared as
    /// JSON text: `"on its way"` for a string, `5` for a number), and returns it.
    ///
    /// - Throws: ``HeraldExpectationFailure`` after `timeout`, listing the activities shown instead.
    @discardableResult
    public func expectActivity(
        in bundleID: String,
        contentState key: String,
        equals value: JSONValue,
        within timeout: Duration = .seconds(5)
    ) async throws -> ActivitySnapshot {
        try await expectActivity(in: bundleID, within: timeout, "with \(key) = \(value)") { activity in
            Self.contentState(of: activity)?[key] == value
        }
    }

    /// Waits until the app shows no Live Activity that `matches` (ended and dismissed, or never started).
    ///
    /// - Throws: ``HeraldExpectationFailure`` after `timeout`, listing the activities shown instead.
    public func expectNoActivity(
        in bundleID: String,
        within timeout: Duration = .seconds(5),
        _ description: String = "matching",
        where matches: @Sendable (ActivitySnapshot) -> Bool = { _ in true }
    ) async throws {
        _ = try token(for: bundleID)
        _ = try await poll(within: timeout) {
            await "device '\(self.name)': \(bundleID) still shows a Live Activity \(description) after \(timeout)" + self.activityListing(bundleID)
        } check: { () -> Bool? in
            await self.activities(in: bundleID).contains(where: matches) ? nil : true
        }
    }

    /// Waits until the device's link subscribes the app to a broadcast channel (an activity that follows it is
    /// running and the server accepted the subscription).
    ///
    /// - Throws: ``HeraldExpectationFailure`` after `timeout`.
    public func expectChannelSubscription(_ channelID: String, in bundleID: String, within timeout: Duration = .seconds(5)) async throws {
        _ = try await poll(within: timeout) {
            let subscribed = self.linked.channelSubscriptions.filter { $0.bundleID == bundleID }.map(\.channelID)
            return "device '\(self.name)': \(bundleID) is not subscribed to channel \(channelID) within \(timeout)"
                + (subscribed.isEmpty ? " (it follows none)" : " (it follows \(subscribed.sorted().joined(separator: ", ")))")
        } check: { () -> Bool? in
            self.linked.channelSubscriptions.contains { $0.bundleID == bundleID && $0.channelID == channelID } ? true : nil
        }
    }

    /// Waits until the server has registered the app's push-to-start token for an activity type (the device reports
    /// it after it registers the app), and returns it: where a provider sends `event: start`.
    ///
    /// - Throws: ``HeraldExpectationFailure`` after `timeout`.
    public func pushToStartToken(for bundleID: String, type activityType: String, within timeout: Duration = .seconds(10)) async throws -> String {
        try await poll(within: timeout) {
            "device '\(self.name)': \(bundleID) registered no push-to-start token for \(activityType) within \(timeout)"
        } check: {
            self.linked.activityTokens.first { $0.bundleID == bundleID && $0.kind == .pushToStart && $0.activityType == activityType }?.token.hex
        }
    }

    /// An activity's content state as JSON.
    public static func contentState(of activity: ActivitySnapshot) -> [String: JSONValue]? {
        guard case .object(let members)? = try? JSONParser.parse(Array(activity.contentState.utf8)) else { return nil }
        return Dictionary(members.map { ($0.key, $0.value) }) { first, _ in first }
    }

    func activityListing(_ bundleID: String) async -> String {
        let shown = await activities(in: bundleID).map { "\($0.typeName) \($0.state.rawValue) \($0.contentState)" }
        return shown.isEmpty ? " (it shows none)" : " (it shows \(shown.joined(separator: "; ")))"
    }
}
