import Foundation
import Synchronization

extension UNUserNotificationCenter {
    /// Schedules a local notification.
    ///
    /// Fails with ``UNError/Code/notificationsNotAllowed`` unless the app is authorized, with
    /// ``UNError/Code/notificationInvalidNoDate`` for a trigger that can never fire (an invalid
    /// interval, a calendar match in the past), with ``UNError/Code/notificationInvalidNoContent``
    /// for empty content, and with an attachment error when an attachment cannot be moved into
    /// the store — in which case the request is not scheduled (spec §C.6). A request whose
    /// identifier matches a pending request replaces it (spec §C.4). Requests without a trigger
    /// are due at once: the ``DeviceRuntime`` delivers them on its next scheduling pass.
    public func add(_ request: UNNotificationRequest, withCompletionHandler completionHandler: (@Sendable ((any Error)?) -> Void)? = nil) {
        do {
            try schedule(request)
            completionHandler?(nil)
        } catch {
            completionHandler?(error)
        }
    }

    /// The `async` form of ``add(_:withCompletionHandler:)``.
    public func add(_ request: UNNotificationRequest) async throws {
        try schedule(request)
    }

    private func schedule(_ request: UNNotificationRequest) throws {
        guard state.withLock({ $0.authorizationStatus.allowsDelivery }) else {
            throw UNError(.notificationsNotAllowed, reason: "the app is not authorized to post notifications")
        }
        if request.trigger is UNPushNotificationTrigger {
            throw UNError(.notificationInvalidNoDate, reason: "push triggers are created by the system only")
        }
        if let failure = request.trigger?.validationFailure { throw failure }
        let now = clock.now
        var fireDate: Date? = now
        if let trigger = request.trigger {
            fireDate = trigger.firstFireDate(scheduledAt: now)
            if fireDate == nil && !(trigger is UNLocationNotificationTrigger) {
                throw UNError(.notificationInvalidNoDate, reason: "the trigger never fires")
            }
        }
        var value = request.content.value
        guard value.isUserVisible || !value.attachments.isEmpty else {
            throw UNError(.notificationInvalidNoContent, reason: "no title, subtitle, body, sound, badge or attachment")
        }
        value.attachments = try value.attachments.map { try attachmentStore.adopt($0) }
        let stored = UNNotificationRequest(identifier: request.identifier, content: UNNotificationContent(value: value), trigger: request.trigger)
        let (dropped, referenced) = state.withLock { state in
            let dropped = state.schedule(
                stored,
                firstFireDate: fireDate,
                limit: configuration.pendingRequestLimit,
                rule: configuration.pendingRetentionRule
            )
            return (dropped, state.referencedAttachmentURLs)
        }
        attachmentStore.discard(dropped.flatMap(\.content.attachments), keeping: referenced)
    }

    /// Reports the scheduled requests, in the order they were added.
    public func getPendingNotificationRequests(completionHandler: @escaping @Sendable ([UNNotificationRequest]) -> Void) {
        completionHandler(pendingRequests())
    }

    /// The `async` form of ``getPendingNotificationRequests(completionHandler:)``.
    public func pendingNotificationRequests() async -> [UNNotificationRequest] { pendingRequests() }

    func pendingRequests() -> [UNNotificationRequest] {
        state.withLock { $0.pending.sorted { $0.addedSequence < $1.addedSequence }.map(\.request) }
    }

    /// Unschedules the requests with these identifiers; unknown identifiers are ignored.
    public func removePendingNotificationRequests(withIdentifiers identifiers: [String]) {
        let ids = Set(identifiers)
        let (removed, referenced) = state.withLock { state in
            let removed = state.pending.filter { ids.contains($0.request.identifier) }.map(\.request)
            state.pending.removeAll { ids.contains($0.request.identifier) }
            return (removed, state.referencedAttachmentURLs)
        }
        attachmentStore.discard(removed.flatMap(\.content.attachments), keeping: referenced)
    }

    /// Unschedules every request.
    public func removeAllPendingNotificationRequests() {
        removePendingNotificationRequests(withIdentifiers: pendingRequests().map(\.identifier))
    }

    /// Reports the notifications still in Notification Center, newest first. Notifications
    /// triggered by location are not reported (they can be removed, spec §C.1).
    public func getDeliveredNotifications(completionHandler: @escaping @Sendable ([UNNotification]) -> Void) {
        completionHandler(deliveredList())
    }

    /// The `async` form of ``getDeliveredNotifications(completionHandler:)``.
    public func deliveredNotifications() async -> [UNNotification] { deliveredList() }

    func deliveredList() -> [UNNotification] {
        state.withLock { state in
            state.delivered.map(\.notification).filter { !($0.request.trigger is UNLocationNotificationTrigger) }
        }
    }

    /// Removes these notifications from Notification Center; identifiers of notifications that
    /// are not displayed are ignored.
    public func removeDeliveredNotifications(withIdentifiers identifiers: [String]) {
        let ids = Set(identifiers)
        let (removed, referenced) = state.withLock { state in
            let removed = state.delivered.filter { ids.contains($0.notification.request.identifier) }
            state.delivered.removeAll { ids.contains($0.notification.request.identifier) }
            return (removed, state.referencedAttachmentURLs)
        }
        attachmentStore.discard(removed.flatMap(\.notification.request.content.attachments), keeping: referenced)
    }

    /// Removes every notification from Notification Center.
    public func removeAllDeliveredNotifications() {
        removeDeliveredNotifications(withIdentifiers: state.withLock { $0.delivered.map(\.notification.request.identifier) })
    }
}
