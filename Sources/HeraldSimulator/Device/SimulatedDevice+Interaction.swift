import Foundation
import HeraldUserNotifications

import struct HeraldCore.NotificationID

extension SimulatedDevice {
    /// The user taps a notification: the app opens and receives the default action.
    /// Reports `action` (with the callbacks the app received) and `removed`.
    ///
    /// Opening the app this way delivers a held background push too: then a `background` report
    /// (`held: true`) names it.
    public func tap(_ identifier: String, in bundleID: String) async throws -> [DeviceReport] {
        let app = try hosted(bundleID)
        let outcome = try await refusing { try await app.runtime.tap(identifier) }
        var reports = await responseReports(
            app,
            identifier,
            event: .action,
            outcome: outcome,
            extra: ["action": .string(UNNotificationDefaultActionIdentifier)]
        )
        if outcome.stateAfter == .foreground, let held = apps[bundleID]?.heldPush {
            apps[bundleID]?.heldPush = nil
            reports.append(heldPushReport(held, in: bundleID, calls: [.didReceiveRemoteNotification], stateAfter: outcome.stateAfter))
        }
        return reports
    }

    /// The user chooses an action of a notification; a text input action needs `text`. Reports
    /// `action` and, when the notification left Notification Center, `removed`.
    public func perform(_ action: String, on identifier: String, in bundleID: String, text: String? = nil) async throws -> [DeviceReport] {
        let app = try hosted(bundleID)
        let outcome = try await refusing { try await app.runtime.perform(actionIdentifier: action, on: identifier, userText: text) }
        var extra: [String: JSONValue] = ["action": .string(action), "text": text.map { .string($0) } ?? .null]
        if let option = outcome.contentExtensionOption {
            extra["contentExtensionResponse"] = .string(ManifestNames.name(of: option, in: ManifestNames.responseOptions))
        }
        return await responseReports(app, identifier, event: .action, outcome: outcome, extra: extra)
    }

    /// The user clears a notification. Reports `dismissed` (the app is told only for categories
    /// with `customDismissAction`) and `removed`.
    public func dismiss(_ identifier: String, in bundleID: String) async throws -> [DeviceReport] {
        let app = try hosted(bundleID)
        let outcome = try await refusing { try await app.runtime.dismiss(identifier) }
        return await responseReports(app, identifier, event: .dismissed, outcome: outcome, extra: [:])
    }

    /// The user long-presses a notification. Reports `expanded` with the content extension's
    /// rendering, or `contentExtension: null` for the default expanded interface.
    public func expand(_ identifier: String, in bundleID: String) async throws -> [DeviceReport] {
        let app = try hosted(bundleID)
        let rendering = try await refusing { try await app.runtime.expand(identifier) }
        var detail: [String: JSONValue] = ["contentExtension": rendering.map { ReportDetail.encoded($0) } ?? .null]
        if let rendering { detail["consoleText"] = .string(rendering.consoleText) }
        return [report(.expanded, app, identifier, detail)]
    }

    /// The user presses the expanded interface's media play/pause button. Reports `media` with
    /// `playing` and the method called (`mediaPlay()` or `mediaPause()`).
    public func playPause(in bundleID: String) async throws -> [DeviceReport] {
        let app = try hosted(bundleID)
        let rendering = try await refusing { try await app.runtime.tapMediaPlayPauseButton() }
        let playing = rendering.mediaButton?.isPlaying ?? false
        let detail: [String: JSONValue] = [
            "playing": .bool(playing),
            "callback": .string(playing ? AppCall.mediaPlay.rawValue : AppCall.mediaPause.rawValue),
            "contentExtension": ReportDetail.encoded(rendering),
        ]
        return [report(.media, app, rendering.notificationIdentifier, detail)]
    }

    /// The user closes the expanded interface.
    public func collapse(in bundleID: String) async throws {
        try await hosted(bundleID).runtime.collapse()
    }

    /// Moves an app to a state as the user and the system would (launching it first when the
    /// state needs a running app). Reports `background` when a held background push reaches the
    /// app as it opens, naming that push (its `apns-id`), so that its trace records it.
    public func setState(_ state: AppLifecycleState, in bundleID: String) async throws -> [DeviceReport] {
        let app = try hosted(bundleID)
        let calls = await app.move(to: state)
        if state == .terminatedByUser || state == .notRunning {
            // The runtime discards a held push when the app ends.
            apps[bundleID]?.heldPush = nil
        }
        guard calls.contains(.didReceiveRemoteNotification) else { return [] }
        let held = apps[bundleID]?.heldPush
        apps[bundleID]?.heldPush = nil
        return [heldPushReport(held, in: bundleID, calls: calls, stateAfter: await app.runtime.appState)]
    }

    /// `background` for a held push that reached the app as it opened.
    private func heldPushReport(
        _ held: (apnsID: NotificationID, identifier: String)?,
        in bundleID: String,
        calls: [AppCall],
        stateAfter: AppLifecycleState
    ) -> DeviceReport {
        let detail: [String: JSONValue] = [
            "callback": .string(AppCall.didReceiveRemoteNotification.rawValue),
            "callbacks": ReportDetail.strings(calls.map(\.rawValue)),
            "held": .bool(true),
            "stateAfter": .string(stateAfter.rawValue),
        ]
        return DeviceReport(
            event: .background,
            bundleID: bundleID,
            apnsID: held?.apnsID,
            notificationIdentifier: held?.identifier,
            date: clock.now,
            detail: detail
        )
    }

    private func responseReports(
        _ app: HostedApp,
        _ identifier: String,
        event: DeviceReport.Event,
        outcome: InteractionOutcome,
        extra: [String: JSONValue]
    ) async -> [DeviceReport] {
        var detail = extra
        detail["callbacks"] = ReportDetail.strings(outcome.appCalls.map(\.rawValue))
        detail["deliveredToApp"] = .bool(outcome.deliveredToApp)
        detail["stateAfter"] = .string(outcome.stateAfter.rawValue)
        var reports = [report(event, app, identifier, detail)]
        let stillDelivered = await app.runtime.center.deliveredNotifications().contains { $0.request.identifier == identifier }
        if !stillDelivered {
            let reason = event == .dismissed ? "dismissed" : "opened"
            reports.append(report(.removed, app, identifier, ["reason": .string(reason)]))
            apps[app.manifest.bundleID]?.apnsIDs[identifier] = nil
        }
        return reports
    }

    private func report(_ event: DeviceReport.Event, _ app: HostedApp, _ identifier: String?, _ detail: [String: JSONValue]) -> DeviceReport {
        DeviceReport(
            event: event,
            bundleID: app.manifest.bundleID,
            apnsID: identifier.flatMap { apps[app.manifest.bundleID]?.apnsIDs[$0] },
            notificationIdentifier: identifier,
            date: clock.now,
            detail: detail
        )
    }

    /// Runs a runtime interaction, turning its refusal into a ``SimulatorError``.
    private func refusing<T: Sendable>(_ body: () async throws -> T) async throws -> T {
        do {
            return try await body()
        } catch let error as InteractionError {
            throw SimulatorError(.refused, error.reason)
        }
    }
}
