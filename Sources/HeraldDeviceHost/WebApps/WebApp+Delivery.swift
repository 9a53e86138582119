import Foundation
import HeraldCore
import HeraldDeviceLink
import HeraldServiceWorker
import HeraldSimulator
import HeraldWebPush

extension DeviceReport.Event {
    /// A web push message was decrypted (RFC 8291). Detail: `length`, `declarative`.
    public static let decrypted = Self(rawValue: "decrypted")
    /// A web app showed a notification. Detail: its `title`, `body`, `tag`, `source`, `navigate`.
    public static let shown = Self(rawValue: "shown")
    /// A web app showed nothing for a message. Detail: `reason`, and for a service worker's silence the count.
    public static let notShown = Self(rawValue: "not-shown")
}

/// What one delivered message did to a web app: the reports, in order, and whether it revoked the subscription.
public struct WebAppDelivery: Sendable {
    /// The reports (`decrypted`, `shown`, `not-shown`), in order.
    public var reports: [DeviceReport] = []
    /// Whether this message was the silent push that revoked the subscription: the device then unsubscribes.
    public var revoked = false
}

extension WebApp {
    /// Handles one delivered message (`pushType` `web-push`, the payload a `WebPushStoredMessage`): decrypts it, then
    /// shows the declarative notification or runs the service worker's `push`.
    public func receive(_ notification: DeviceLinkNotification) async -> WebAppDelivery {
        var delivery = WebAppDelivery()
        let apnsID = notification.apnsID
        func notShown(_ reason: String, _ extra: [String: JSONValue] = [:]) -> WebAppDelivery {
            var detail = extra
            detail["reason"] = .string(reason)
            delivery.reports.append(report(.notShown, apnsID: apnsID, detail: detail))
            return delivery
        }
        if case .revoked(let reason) = subscription { return notShown("the subscription was revoked: \(reason)") }
        // Safari hands nothing to the page once its permission is gone; not a silent push of the site's.
        if permissionRemoved {
            return notShown("the user removed the web app's permission for notifications: dropped, though the push service answered 201")
        }
        guard let message = WebPushStoredMessage(payload: notification.payload) else {
            return notShown("the payload is not a web push message ({\"web_push_message\":{…}})")
        }
        let plaintext: [UInt8]?
        switch message.encoding {
        case nil:
            // RFC 8030 allows a push without data: nothing to decrypt, and the worker's `event.data` is null.
            plaintext = nil
        case .aes128gcm?:
            do {
                plaintext = try keys.decrypt(message.body)
            } catch {
                return notShown("cannot decrypt: \(error)")
            }
        case .aesgcm?:
            return notShown("the body is aesgcm, the draft coding; Herald's web apps decrypt only aes128gcm (RFC 8291)")
        }
        let parsed = plaintext.map(DeclarativePushMessage.parse) ?? .notDeclarative
        var decrypted: [String: JSONValue] = ["length": .integer(plaintext?.count ?? 0), "encoding": .nullable(message.encoding?.rawValue)]
        if case .declarative = parsed { decrypted["declarative"] = true }
        if case .invalid(let why) = parsed { decrypted["declarativeError"] = .string(why) }
        delivery.reports.append(report(.decrypted, apnsID: apnsID, detail: decrypted))

        if case .declarative(let declarative) = parsed {
            // Not mutable: shown as it is. Mutable: the worker's `push` runs first, and when it shows nothing the
            // declarative notification is the fallback — never counted as silent (WebKit's "Meet Declarative Web Push").
            if declarative.isMutable, worker != nil {
                let outcome = await runPush(plaintext)
                if !outcome.shown.isEmpty {
                    delivery.reports += show(outcome, apnsID: apnsID)
                    return delivery
                }
            }
            delivery.reports.append(show(declarative, apnsID: apnsID))
            return delivery
        }
        guard worker != nil else {
            // *(chosen)*: a site without a service worker can only show declarative messages; anything else is a
            // push that showed nothing, counted like one.
            return countSilent(&delivery, apnsID: apnsID, reason: "no service worker to handle a push that is not a declarative message")
        }
        let outcome = await runPush(plaintext)
        guard outcome.shown.isEmpty else {
            delivery.reports += show(outcome, apnsID: apnsID)
            return delivery
        }
        var reason = "the service worker showed no notification"
        if let error = outcome.error { reason += " (\(error))" }
        return countSilent(&delivery, apnsID: apnsID, reason: reason)
    }

    /// Counts a push that showed nothing; the last one allowed revokes the subscription.
    private func countSilent(_ delivery: inout WebAppDelivery, apnsID: NotificationID, reason: String) -> WebAppDelivery {
        silentPushes += 1
        var detail: [String: JSONValue] = [
            "reason": .string(reason), "silentPushes": .integer(silentPushes), "maximumSilentPushes": .integer(configuration.maximumSilentPushes),
        ]
        if silentPushes >= configuration.maximumSilentPushes {
            subscription = .revoked(reason: "\(silentPushes) pushes showed no notification (Safari allows \(configuration.maximumSilentPushes - 1))")
            detail["revoked"] = true
            delivery.revoked = true
        }
        delivery.reports.append(report(.notShown, apnsID: apnsID, detail: detail))
        return delivery
    }

    /// The worker's `push` with `plaintext`, the worker started first if it is not yet.
    private func runPush(_ plaintext: [UInt8]?) async -> ServiceWorkerOutcome {
        guard let worker else { return ServiceWorkerOutcome(event: "push") }
        if !workerStarted {
            workerStarted = true
            _ = await worker.start()
        }
        let outcome = await worker.push(data: plaintext)
        apply(outcome)
        return outcome
    }

    /// What a worker's event changed besides what it showed: closed notifications leave, the badge follows.
    func apply(_ outcome: ServiceWorkerOutcome) {
        notifications.removeAll { $0.source == .serviceWorker && outcome.closed.contains($0.id) }
        if let change = outcome.badge { badge = change }
    }

    /// Shows what the worker showed; a `shown` report for each.
    private func show(_ outcome: ServiceWorkerOutcome, apnsID: NotificationID) -> [DeviceReport] {
        outcome.shown.map { show(WebAppNotification($0, apnsID: apnsID)) }
    }

    /// Shows a declarative message and sets its badge.
    private func show(_ message: DeclarativePushMessage, apnsID: NotificationID) -> DeviceReport {
        if let count = message.appBadge { badge = count == 0 ? .cleared : .count(count) }
        let id = "declarative-\(nextNotification)"
        nextNotification += 1
        return show(WebAppNotification(message, id: id, apnsID: apnsID))
    }

    /// Puts a notification on screen, replacing the one with its tag.
    private func show(_ notification: WebAppNotification) -> DeviceReport {
        var detail = notification.detail
        if !notification.tag.isEmpty, let replaced = notifications.first(where: { $0.tag == notification.tag }) {
            detail["replaced"] = .string(replaced.id)
            notifications.removeAll { $0.tag == notification.tag }
        }
        notifications.append(notification)
        if let badge { detail["badge"] = badge.json }
        return report(.shown, apnsID: notification.apnsID, identifier: notification.id, detail: detail)
    }

    /// A report of this web app (its origin as the bundle id).
    func report(_ event: DeviceReport.Event, apnsID: NotificationID?, identifier: String? = nil, detail: [String: JSONValue]) -> DeviceReport {
        DeviceReport(event: event, bundleID: origin, apnsID: apnsID, notificationIdentifier: identifier, date: now(), detail: detail)
    }
}

extension AppBadgeChange {
    /// The badge as the screen and reports write it: a number, `"flag"`, or 0 when cleared.
    var json: JSONValue {
        switch self {
        case .count(let count): .integer(count)
        case .flag: "flag"
        case .cleared: 0
        }
    }
}
