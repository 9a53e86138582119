import Foundation
import HeraldUserNotifications

import struct HeraldCore.NotificationID

/// One notification's handling by an app's runtime, turned into the device's reports.
struct Delivery {
    let notification: IncomingNotification
    let identifier: String
    let payload: RemotePayload
    let outcome: RemoteNotificationOutcome
    /// The runtime's events for this request identifier during the delivery.
    let events: [DeviceEvent]
    let before: [UNNotification]
    let after: [UNNotification]
    let settings: UNNotificationSettings
    let run: ExtensionRun?
    let date: Date

    /// `modified`, `removed`, `displayed` or `dropped`, `background` — in that order.
    func reports(for app: HostedApp) -> [DeviceReport] {
        let original = payload.content(localizedStrings: app.manifest.localizedStrings)
        let extensionContent = outcome.serviceExtension.usedExtensionContent ? run?.handedOver ?? original : original
        let extensionRan: Bool
        if case .notRun = outcome.serviceExtension { extensionRan = false } else { extensionRan = true }

        var reports: [DeviceReport] = []
        func report(_ event: DeviceReport.Event, _ detail: [String: JSONValue], earlier: String? = nil) {
            let identifier = earlier ?? self.identifier
            let apnsID: NotificationID? = if let earlier { app.apnsIDs[earlier] } else { notification.apnsID }
            reports.append(
                DeviceReport(
                    event: event,
                    bundleID: app.manifest.bundleID,
                    apnsID: apnsID,
                    notificationIdentifier: identifier,
                    date: date,
                    detail: detail
                )
            )
        }

        if extensionRan {
            report(.modified, modifiedDetail(app: app, original: original, shown: extensionContent))
        }
        for (removedIdentifier, reason) in removals(extensionRan: extensionRan) {
            report(.removed, ["reason": .string(reason)], earlier: removedIdentifier)
        }
        if let presented = presentationReport(app: app, content: extensionContent) {
            report(presented.event, presented.detail)
        }
        if let background = backgroundReport(app: app, content: extensionContent) {
            report(background.event, background.detail)
        }
        return reports
    }

    private func modifiedDetail(app: HostedApp, original: NotificationContentValue, shown: NotificationContentValue) -> [String: JSONValue] {
        let (name, reason) = ReportDetail.outcome(outcome.serviceExtension)
        var detail: [String: JSONValue] = [
            "extension": .string(app.manifest.serviceExtension?.name ?? "NotificationService"),
            "outcome": .string(name),
            "timeWillExpire": .bool(run?.timeWillExpireCalled ?? false),
            "before": .object(ReportDetail.content(original)),
            "after": .object(ReportDetail.content(shown)),
            "changed": .bool(shown != original),
        ]
        if let reason { detail["message"] = .string(reason) }
        if let notes = run?.notes, !notes.isEmpty { detail["steps"] = .array(notes) }
        return detail
    }

    /// Delivered notifications that are gone or were replaced, with why.
    private func removals(extensionRan: Bool) -> [(String, String)] {
        let remaining = Dictionary(after.map { ($0.request.identifier, $0) }, uniquingKeysWith: { first, _ in first })
        let replaced = events.contains { $0.kind == .replaced }
        return before.compactMap { old in
            let identifier = old.request.identifier
            if let current = remaining[identifier], current.isEqual(old) { return nil }
            if identifier == self.identifier && replaced { return (identifier, "replaced") }
            return (identifier, extensionRan ? "removedByServiceExtension" : "removedByApp")
        }
    }

    /// `displayed`, or `dropped` when visible content was not shown.
    private func presentationReport(app: HostedApp, content: NotificationContentValue) -> (event: DeviceReport.Event, detail: [String: JSONValue])? {
        let authorized = settings.authorizationStatus.allowsDelivery
        if let displayed = events.first(where: { $0.kind == .displayed }) {
            let shown = after.first { $0.request.identifier == identifier }?.request.content.value ?? outcome.displayedContent ?? content
            // The options name what the notification may do; a sound or badge it lacks is not shown.
            let presentation = displayed.detail.split(separator: ",").map(String.init).filter { option in
                (option != "sound" || shown.sound != nil) && (option != "badge" || shown.badge != nil)
            }
            return (.displayed, displayedDetail(app: app, content: shown, presentation: presentation))
        }
        guard content.isUserVisible else { return nil }
        guard authorized else {
            return (.dropped, ReportDetail.drop(.notAuthorized, "the user did not allow notifications for this app", notification))
        }
        // A badge or sound without text: nothing is listed, but the icon or speaker still shows it.
        var audible: [String] = []
        if !content.hasAlertText && content.attachments.isEmpty {
            if outcome.presentation.contains(.sound) && settings.soundSetting == .enabled { audible.append("sound") }
            if outcome.presentation.contains(.badge) && settings.badgeSetting == .enabled { audible.append("badge") }
        }
        if !audible.isEmpty {
            return (.displayed, displayedDetail(app: app, content: content, presentation: audible))
        }
        let requested = ManifestNames.names(of: outcome.presentation, in: ManifestNames.presentationOptions)
        var detail = ReportDetail.drop(
            .notPresented,
            outcome.stateBefore == .foreground
                ? "in the foreground the app's willPresent answered [\(requested.joined(separator: ", "))]: nothing to list or show"
                : "the app's notification settings leave nothing to show",
            notification
        )
        detail["presentation"] = ReportDetail.strings(requested)
        return (.dropped, detail)
    }

    private func displayedDetail(app: HostedApp, content: NotificationContentValue, presentation: [String]) -> [String: JSONValue] {
        var detail = ReportDetail.content(content)
        detail["presentation"] = ReportDetail.strings(presentation)
        detail["inNotificationCenter"] = .bool(after.contains { $0.request.identifier == identifier })
        let contentExtension =
            app.runtime.center.supportsContentExtensions
            ? app.manifest.contentExtensions.first { $0.categories.contains(content.categoryIdentifier) }?.name : nil
        detail["contentExtension"] = contentExtension.map { .string($0) } ?? .null
        let actions = app.runtime.center.category(withIdentifier: content.categoryIdentifier)?.actions ?? []
        detail["actions"] = ReportDetail.encoded(actions.map(CategorySnapshot.Action.init))
        let rejected = events.filter { $0.kind == .attachmentRejected }.map(\.detail)
        if !rejected.isEmpty { detail["attachmentsRejected"] = ReportDetail.strings(rejected) }
        detail["collapseID"] = notification.collapseID.map { .string($0) } ?? .null
        detail["pushType"] = .string(notification.pushType.rawValue)
        detail["priority"] = .int(notification.priority.rawValue)
        return detail
    }

    /// `background` when the app's `didReceiveRemoteNotification` ran; `dropped` when a
    /// background push could not reach the app.
    private func backgroundReport(app: HostedApp, content: NotificationContentValue) -> (event: DeviceReport.Event, detail: [String: JSONValue])? {
        if outcome.appCalls.contains(.didReceiveRemoteNotification) {
            return (
                .background,
                [
                    "callback": .string(AppCall.didReceiveRemoteNotification.rawValue),
                    "callbacks": ReportDetail.strings(outcome.appCalls.map(\.rawValue)),
                    "contentAvailable": .bool(outcome.isContentAvailable),
                    "stateBefore": .string(outcome.stateBefore.rawValue),
                    "stateWhileHandling": .string(outcome.stateWhileHandling.rawValue),
                    "stateAfter": .string(outcome.stateAfter.rawValue),
                    "fetchResult": ReportDetail.fetchResult(outcome.fetchResult),
                    "fetchExpired": .bool(outcome.fetchExpired),
                ]
            )
        }
        if outcome.isContentAvailable {
            if outcome.held {
                var detail = ReportDetail.drop(
                    .backgroundPushBudget,
                    "over the background push budget: held until the user opens the app (a newer held push replaces it)",
                    notification
                )
                detail["held"] = .bool(true)
                return (.dropped, detail)
            }
            if outcome.stateBefore == .terminatedByUser {
                return (
                    .dropped, ReportDetail.drop(.appTerminatedByUser, "the user force-quit the app: background pushes do not launch it", notification)
                )
            }
            if !app.manifest.backgroundModes.contains("remote-notification") {
                return (.dropped, ReportDetail.drop(.noBackgroundMode, "the app lacks UIBackgroundModes remote-notification", notification))
            }
        }
        if !content.isUserVisible {
            return (.dropped, ReportDetail.drop(.nothingToShow, "no alert, sound or badge, and no content-available", notification))
        }
        return nil
    }
}
