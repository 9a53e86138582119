import Foundation

extension DeviceRuntime {
    /// Feeds a remote notification payload (`[String: Any]`, as `JSONSerialization` makes it) to
    /// the device, as APNs would deliver it. `collapseID` (`apns-collapse-id`) becomes the request
    /// identifier; otherwise `apnsID`, otherwise a generated one.
    ///
    /// What happens (spec §B.3, §C.7, §C.9, seed 003): the service extension runs for alerts with
    /// `mutable-content: 1`; attachments are validated; the app is woken for `content-available`
    /// (unless force-quit, or over the background budget); the alert is shown by the system,
    /// or, in the foreground, as `willPresent` decides; the fetch handler is called when the app
    /// is running or woken.
    nonisolated(nonsending) public func receiveRemoteNotification(
        _ payload: [String: Any],
        collapseID: String? = nil,
        apnsID: String? = nil
    ) async throws -> RemoteNotificationOutcome {
        try await receive(RemotePayload(payload), collapseID: collapseID, apnsID: apnsID)
    }

    /// Feeds a JSON payload (see ``receiveRemoteNotification(_:collapseID:apnsID:)``).
    nonisolated public func receiveRemoteNotification(
        json: Data,
        collapseID: String? = nil,
        apnsID: String? = nil
    ) async throws
        -> RemoteNotificationOutcome
    {
        try await receive(RemotePayload(json: json), collapseID: collapseID, apnsID: apnsID)
    }

    /// Feeds a parsed payload.
    ///
    /// `serviceExtensionTimesOut` (a fault rule's `extensionTimeout`, docs/faults.md) makes the service extension, when
    /// it runs, run out of its budget at once: see ``runServiceExtension(_:timesOut:)``. Without a run (no
    /// `mutable-content`, no alert text, no extension) it changes nothing.
    public func receive(
        _ payload: RemotePayload,
        collapseID: String? = nil,
        apnsID: String? = nil,
        serviceExtensionTimesOut: Bool = false
    ) async -> RemoteNotificationOutcome {
        let identifier = collapseID ?? apnsID ?? UUID().uuidString
        let firstCall = callLog.count
        let before = application.lifecycleState
        record(.received, identifier, payload.isContentAvailable ? "content-available" : "")
        var content = payload.content(localizedStrings: configuration.localizedStrings)
        let settings = center.state.withLock { $0.settings }
        let authorized = settings.authorizationStatus.allowsDelivery

        var extensionOutcome: ServiceExtensionOutcome
        if !payload.isMutableContent {
            extensionOutcome = .notRun(reason: "mutable-content is not 1")
        } else if !content.hasAlertText {
            extensionOutcome = .notRun(reason: "not an alert: no title, subtitle or body")
        } else if !authorized || settings.alertSetting != .enabled {
            extensionOutcome = .notRun(reason: "the app may not show alerts")
        } else if makeServiceExtension == nil {
            extensionOutcome = .notRun(reason: "no service extension is installed")
        } else {
            let request = UNNotificationRequest(
                identifier: identifier,
                content: UNNotificationContent(value: content),
                trigger: UNPushNotificationTrigger()
            )
            (content, extensionOutcome) = await runServiceExtension(request, timesOut: serviceExtensionTimesOut)
            record(.modified, identifier, "\(extensionOutcome)")
        }
        content.attachments = adoptAttachments(content.attachments, identifier: identifier)

        var held = false
        var callsFetch = before == .foreground
        var restoreState: AppLifecycleState?
        if before != .foreground, before != .terminatedByUser, payload.isContentAvailable, application.handlesRemoteNotificationsInBackground {
            if takeBackgroundWake() {
                callsFetch = true
                restoreState = wakeIntoBackground()
            } else {
                held = true
                if heldBackgroundPush != nil { record(.discarded, nil, "a newer background push is held") }
                heldBackgroundPush = payload
                record(.held, identifier, "over the background push budget")
            }
        }
        let stateWhileHandling = application.lifecycleState

        let request = UNNotificationRequest(
            identifier: identifier,
            content: UNNotificationContent(value: content),
            trigger: UNPushNotificationTrigger()
        )
        var presentation: UNNotificationPresentationOptions = []
        if !content.isUserVisible {
            record(.notDisplayed, identifier, "silent: no alert, sound or badge")
        } else if !authorized {
            record(.notDisplayed, identifier, "notifications are not authorized")
        } else {
            let date = clock.now
            presentation =
                before == .foreground
                ? await foregroundPresentation(for: UNNotification(request: request, date: date))
                : systemPresentation(for: content)
            present(request, options: presentation, isRemote: true, date: date)
        }

        var fetchResult: UIBackgroundFetchResult?
        var fetchExpired = false
        if callsFetch {
            (fetchResult, fetchExpired) = await callFetch(payload, identifier: identifier)
            if restoreState == .suspended, application.lifecycleState == .background { setState(.suspended) }
        }
        return RemoteNotificationOutcome(
            identifier: identifier,
            isContentAvailable: payload.isContentAvailable,
            stateBefore: before,
            stateWhileHandling: stateWhileHandling,
            stateAfter: application.lifecycleState,
            serviceExtension: extensionOutcome,
            presentation: presentation,
            displayedContent: presentation.showsInList || presentation.showsBanner ? content : nil,
            appCalls: Array(callLog[firstCall...]),
            fetchResult: fetchResult,
            fetchExpired: fetchExpired,
            held: held
        )
    }

    /// Moves each attachment into the center's store; rejects (and records) those that fail.
    func adoptAttachments(_ attachments: [UNNotificationAttachment], identifier: String) -> [UNNotificationAttachment] {
        attachments.compactMap { attachment in
            do {
                return try center.attachmentStore.adopt(attachment)
            } catch {
                record(.attachmentRejected, identifier, "\(attachment.identifier): \(error)")
                return nil
            }
        }
    }

    /// Runs the service extension with its budget (spec §C.7).
    ///
    /// `timesOut` (a fault rule's `extensionTimeout`) spends the budget at once: `serviceExtensionTimeWillExpire()` is
    /// called as soon as `didReceive` returns, content the extension hands over before that counts as too late, and
    /// what it hands over in `serviceExtensionTimeWillExpire()` (its best attempt), or else the original, is shown.
    func runServiceExtension(_ request: UNNotificationRequest, timesOut: Bool = false) async -> (NotificationContentValue, ServiceExtensionOutcome) {
        let original = request.content.value
        guard let makeServiceExtension else { return (original, .notRun(reason: "no service extension is installed")) }
        let instance: UNNotificationServiceExtension
        do {
            instance = try makeServiceExtension()
        } catch {
            return (original, .failedShowingOriginal(reason: "\(error)"))
        }
        let slot = CallbackSlot<NotificationContentValue>()
        let deadline = clock.now.addingTimeInterval(configuration.serviceExtensionBudget)
        recordCall(.serviceExtensionDidReceive, request.identifier)
        if timesOut {
            // Why: the extension is cut off right after `didReceive` returns, as one whose work outlasts the budget;
            // the gate opens for `serviceExtensionTimeWillExpire()` only.
            let expiry = CallbackSlot<Void>()
            instance.timeBudgetIsSpent = true
            withCurrentCenter {
                instance.didReceive(request) { content in
                    if expiry.value != nil { slot.fulfil(content.value) }
                }
            }
            expiry.fulfil(())
        } else {
            withCurrentCenter { instance.didReceive(request) { content in slot.fulfil(content.value) } }
            if let value = await slot.value(before: deadline, on: clock) {
                return (value, .completed)
            }
        }
        recordCall(.serviceExtensionTimeWillExpire, request.identifier)
        withCurrentCenter { instance.serviceExtensionTimeWillExpire() }
        if let value = slot.value {
            return (value, .expiredWithBestAttempt)
        }
        slot.fulfil(original)
        record(.expired, request.identifier, "the service extension handed nothing over; showing the original content")
        return (original, .expiredShowingOriginal)
    }
}
