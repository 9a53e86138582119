import Foundation

extension DeviceRuntime {
    /// The user taps a notification (the default action): it leaves Notification Center, the app
    /// comes to the foreground (launching with the payload in its launch options if needed), and
    /// the delegate's `didReceive` gets ``UNNotificationDefaultActionIdentifier``. Without a
    /// delegate implementing `didReceive`, a remote notification goes to
    /// `application(_:didReceiveRemoteNotification:fetchCompletionHandler:)` (seed 003).
    @discardableResult
    public func tap(_ identifier: String) async throws -> InteractionOutcome {
        let entry = try deliveredEntry(identifier)
        let firstCall = callLog.count
        record(.acted, identifier, UNNotificationDefaultActionIdentifier)
        center.removeDeliveredNotifications(withIdentifiers: [identifier])
        if expanded?.notification.request.identifier == identifier { expanded = nil }
        let response = UNNotificationResponse(notification: entry.notification, actionIdentifier: UNNotificationDefaultActionIdentifier)
        let delivered = await deliverResponse(response, isRemote: entry.isRemote, foreground: true)
        await deliverHeldPush()
        return InteractionOutcome(
            appCalls: Array(callLog[firstCall...]),
            stateAfter: application.lifecycleState,
            contentExtensionOption: nil,
            deliveredToApp: delivered
        )
    }

    /// The user chooses an action of the notification's category (or of the content extension's
    /// current action list). Text input actions need `userText`. An expanded content extension
    /// that implements `didReceive(_:completionHandler:)` handles it first (spec §C.8).
    @discardableResult
    public func perform(actionIdentifier: String, on identifier: String, userText: String? = nil) async throws -> InteractionOutcome {
        let entry = try deliveredEntry(identifier)
        let session = expanded?.notification.request.identifier == identifier ? expanded : nil
        let categoryID = entry.notification.request.content.categoryIdentifier
        let actions = session?.context.notificationActions ?? center.category(withIdentifier: categoryID)?.actions ?? []
        guard let action = actions.first(where: { $0.identifier == actionIdentifier }) else {
            throw InteractionError(reason: "no action \"\(actionIdentifier)\" in category \"\(categoryID)\"")
        }
        if action.options.contains(.authenticationRequired) && deviceLocked {
            throw InteractionError(reason: "\"\(actionIdentifier)\" requires an unlocked device")
        }
        let response: UNNotificationResponse
        if action is UNTextInputNotificationAction {
            guard let userText else { throw InteractionError(reason: "\"\(actionIdentifier)\" is a text input action: userText is required") }
            response = UNTextInputNotificationResponse(notification: entry.notification, actionIdentifier: actionIdentifier, userText: userText)
        } else {
            response = UNNotificationResponse(notification: entry.notification, actionIdentifier: actionIdentifier)
        }
        let firstCall = callLog.count
        record(.acted, identifier, actionIdentifier)
        var option: UNNotificationContentExtensionResponseOption?
        if let session {
            option = await contentExtensionHandle(response, in: session)
            if option == .doNotDismiss || option == .dismiss {
                if option == .dismiss { expanded = nil }
                return InteractionOutcome(
                    appCalls: Array(callLog[firstCall...]),
                    stateAfter: application.lifecycleState,
                    contentExtensionOption: option,
                    deliveredToApp: false
                )
            }
            expanded = nil
        }
        center.removeDeliveredNotifications(withIdentifiers: [identifier])
        let delivered = await deliverResponse(response, isRemote: entry.isRemote, foreground: action.options.contains(.foreground))
        return InteractionOutcome(
            appCalls: Array(callLog[firstCall...]),
            stateAfter: application.lifecycleState,
            contentExtensionOption: option,
            deliveredToApp: delivered
        )
    }

    /// The user explicitly dismisses a notification (the Clear button): it leaves Notification
    /// Center, and the delegate gets ``UNNotificationDismissActionIdentifier`` only if the
    /// category has `customDismissAction` (spec §C.2). Flicking a banner away is not a dismissal.
    @discardableResult
    public func dismiss(_ identifier: String) async throws -> InteractionOutcome {
        let entry = try deliveredEntry(identifier)
        let firstCall = callLog.count
        record(.acted, identifier, UNNotificationDismissActionIdentifier)
        center.removeDeliveredNotifications(withIdentifiers: [identifier])
        if expanded?.notification.request.identifier == identifier { expanded = nil }
        let category = center.category(withIdentifier: entry.notification.request.content.categoryIdentifier)
        var delivered = false
        if category?.options.contains(.customDismissAction) == true {
            let response = UNNotificationResponse(notification: entry.notification, actionIdentifier: UNNotificationDismissActionIdentifier)
            delivered = await deliverResponse(response, isRemote: entry.isRemote, foreground: false)
        }
        return InteractionOutcome(
            appCalls: Array(callLog[firstCall...]),
            stateAfter: application.lifecycleState,
            contentExtensionOption: nil,
            deliveredToApp: delivered
        )
    }

    func deliveredEntry(_ identifier: String) throws -> DeliveredEntry {
        guard let entry = center.state.withLock({ $0.delivered.first { $0.notification.request.identifier == identifier } }) else {
            throw InteractionError(reason: "no notification \"\(identifier)\" in Notification Center")
        }
        return entry
    }

    /// Brings the app up (foreground, or background for background actions — even after a
    /// force-quit, spec §C.9) and hands the response to the notification delegate.
    func deliverResponse(_ response: UNNotificationResponse, isRemote: Bool, foreground: Bool) async -> Bool {
        let userInfo = response.notification.request.content.value.userInfo
        var restore: AppLifecycleState?
        if foreground {
            bringToForeground(launchOptions: isRemote ? [.remoteNotification: userInfo.userInfoValue] : nil)
        } else if application.lifecycleState == .terminatedByUser {
            launchProcess(into: .background, launchOptions: nil)
            restore = .suspended
        } else {
            restore = wakeIntoBackground()
        }
        defer {
            if restore == .suspended, application.lifecycleState == .background { setState(.suspended) }
        }
        var implemented = false
        if let delegate = center.delegate {
            let call = AppObject(object: delegate)
            let center = center
            let result = await callOptional(
                budget: configuration.delegateBudget,
                completionForm: { handler in call.object.userNotificationCenter(center, didReceive: response) { handler(()) } },
                asyncForm: { await call.object.userNotificationCenter(center, didReceive: response) }
            )
            implemented = result.implemented
            if implemented {
                recordCall(.didReceiveResponse, response.notification.request.identifier)
                if result.value == nil {
                    record(.expired, response.notification.request.identifier, "didReceive completion handler not called in time")
                }
            }
        }
        if !implemented && isRemote && response.actionIdentifier == UNNotificationDefaultActionIdentifier,
            let payload = try? RemotePayload(values: userInfo)
        {
            _ = await callFetch(payload, identifier: response.notification.request.identifier)
            return true
        }
        return implemented
    }
}
