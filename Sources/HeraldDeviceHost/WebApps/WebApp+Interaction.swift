import HeraldCore
import HeraldSimulator

extension WebApp {
    /// The user taps a shown notification: a declarative one opens its `navigate` URL, a service worker's runs its
    /// `notificationclick`; either way it leaves the screen, as a clicked notification leaves Notification Center.
    ///
    /// Returns the `action` report (detail: `opened`, the URLs opened; `source`; the worker's errors), or throws
    /// ``WebAppError`` when no notification on screen has the id.
    public func tap(_ id: String) async throws(WebAppError) -> DeviceReport {
        let notification = try onScreen(id)
        notifications.removeAll { $0.id == id }
        var detail: [String: JSONValue] = ["action": "default", "source": .string(notification.source.rawValue)]
        switch notification.source {
        case .declarative:
            detail["opened"] = .array(notification.navigate.map { [.string($0)] } ?? [])
        case .serviceWorker:
            guard let worker, let shown = notification.workerNotification else { break }
            let outcome = await worker.notificationClick(shown)
            apply(outcome)
            detail["opened"] = .array(outcome.openedWindows.map(JSONValue.string))
            if !outcome.errors.isEmpty { detail["errors"] = .array(outcome.errors.map { .string($0.description) }) }
        }
        return report(.action, apnsID: notification.apnsID, identifier: id, detail: detail)
    }

    /// The user dismisses a shown notification: it leaves the screen, and a service worker's gets its
    /// `notificationclose`. Returns the `dismissed` report, or throws ``WebAppError`` when no notification on screen
    /// has the id.
    public func dismiss(_ id: String) async throws(WebAppError) -> DeviceReport {
        let notification = try onScreen(id)
        notifications.removeAll { $0.id == id }
        var detail: [String: JSONValue] = ["source": .string(notification.source.rawValue)]
        if notification.source == .serviceWorker, let worker, let shown = notification.workerNotification {
            let outcome = await worker.notificationClose(shown)
            apply(outcome)
            if !outcome.errors.isEmpty { detail["errors"] = .array(outcome.errors.map { .string($0.description) }) }
        }
        return report(.dismissed, apnsID: notification.apnsID, identifier: id, detail: detail)
    }

    /// The notification on screen with `id`.
    private func onScreen(_ id: String) throws(WebAppError) -> WebAppNotification {
        guard let notification = notifications.first(where: { $0.id == id }) else {
            let known = notifications.map(\.id).joined(separator: ", ")
            throw WebAppError("no notification \"\(id)\" on the screen of \(origin) (shown: \(known.isEmpty ? "none" : known))")
        }
        return notification
    }

    /// What the device's screen shows of the web app: its origin, kind, subscription, badge and notifications.
    public func screen() -> JSONValue {
        var object: [String: JSONValue] = [
            "origin": .string(origin), "kind": .string(configuration.kind.rawValue), "subscription": .string(subscriptionID.hex),
            "silentPushes": .integer(silentPushes), "notifications": .array(notifications.map(\.screen)),
            "permission": .string(permissionRemoved ? "removed" : "granted"),
        ]
        switch subscription {
        case .pending: object["state"] = "pending"
        case .subscribed(let endpoint):
            object["state"] = "subscribed"
            object["endpoint"] = .string(endpoint)
        case .revoked(let reason):
            object["state"] = "revoked"
            object["reason"] = .string(reason)
        }
        if let badge { object["badge"] = badge.json }
        return .object(object)
    }
}
