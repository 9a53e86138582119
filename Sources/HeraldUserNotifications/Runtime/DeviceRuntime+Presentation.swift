import Foundation

extension DeviceRuntime {
    /// The notification's own options: what the system shows when the app is not in the
    /// foreground, or when there is no notification delegate at all (spec §C.2, §C.10).
    func systemPresentation(for content: NotificationContentValue) -> UNNotificationPresentationOptions {
        var options: UNNotificationPresentationOptions = []
        if content.hasAlertText || !content.attachments.isEmpty {
            options.insert(.list)
            if content.interruptionLevel != .passive { options.insert(.banner) }
        }
        if content.sound != nil && content.interruptionLevel != .passive { options.insert(.sound) }
        if content.badge != nil { options.insert(.badge) }
        return options
    }

    /// Asks the delegate how to present a notification in the foreground.
    func foregroundPresentation(for notification: UNNotification) async -> UNNotificationPresentationOptions {
        guard let delegate = center.delegate else { return systemPresentation(for: notification.request.content.value) }
        let call = AppObject(object: delegate)
        let center = center
        let (value, implemented) = await callOptional(
            budget: configuration.delegateBudget,
            completionForm: { handler in call.object.userNotificationCenter(center, willPresent: notification, withCompletionHandler: handler) },
            asyncForm: { await call.object.userNotificationCenter(center, willPresent: notification) }
        )
        guard implemented else { return [] }
        recordCall(.willPresent, notification.request.identifier)
        if value == nil {
            record(.expired, notification.request.identifier, "willPresent completion handler not called in time")
        }
        return value ?? []
    }

    /// Applies settings: what the user turned off is not done.
    func allowed(_ options: UNNotificationPresentationOptions) -> UNNotificationPresentationOptions {
        let settings = center.state.withLock { $0.settings }
        var result = options
        if options.contains(.alert) { result.formUnion([.list, .banner]) }
        result.remove(.alert)
        if settings.alertSetting != .enabled { result.subtract([.banner]) }
        if settings.soundSetting != .enabled { result.remove(.sound) }
        if settings.badgeSetting != .enabled { result.remove(.badge) }
        if settings.authorizationStatus == .provisional { result.subtract([.banner, .sound]) }
        return result
    }

    /// Shows a notification with the given options: list, banner, sound, badge (spec §C.4,
    /// §C.11). Returns the displayed notification if it went to Notification Center.
    @discardableResult
    func present(
        _ request: UNNotificationRequest,
        options requested: UNNotificationPresentationOptions,
        isRemote: Bool,
        date: Date
    )
        -> UNNotification?
    {
        let options = allowed(requested)
        let notification = UNNotification(request: request, date: date)
        let entry = DeliveredEntry(
            notification: notification,
            isRemote: isRemote,
            presentedAsBanner: options.contains(.banner),
            soundPlayed: options.contains(.sound)
        )
        let (replaced, referenced) = center.state.withLock { state -> (DeliveredEntry?, Set<URL>) in
            if options.contains(.badge) { state.applyBadge(request.content.value.badge) }
            let replaced = options.contains(.list) ? state.insertDelivered(entry) : nil
            return (replaced, state.referencedAttachmentURLs)
        }
        if let replaced {
            record(.replaced, request.identifier, "replaced the notification delivered at \(replaced.notification.date)")
            center.attachmentStore.discard(replaced.notification.request.content.attachments, keeping: referenced)
        }
        guard options.contains(.list) || options.contains(.banner) else {
            record(.notDisplayed, request.identifier, "presentation options \(options.rawValue) show nothing")
            return nil
        }
        record(.displayed, request.identifier, Self.describe(options))
        if let session = expanded, session.notification.request.content.threadIdentifier == request.content.threadIdentifier {
            session.notification = notification
            recordCall(.contentExtensionDidReceiveNotification, request.identifier)
            withCurrentCenter { session.controller.didReceive(notification) }
        }
        return options.contains(.list) ? notification : nil
    }

    static func describe(_ options: UNNotificationPresentationOptions) -> String {
        let names: [(UNNotificationPresentationOptions, String)] = [(.list, "list"), (.banner, "banner"), (.sound, "sound"), (.badge, "badge")]
        return names.filter { options.contains($0.0) }.map(\.1).joined(separator: ",")
    }
}
