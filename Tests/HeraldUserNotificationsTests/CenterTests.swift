import Foundation
import HeraldTestTiers
import HeraldUserNotifications
import Testing

@Suite("Center: values, authorization, schedule, delivered list, badge", .tier(.unit))
struct CenterTests {
    @Test("option and code raw values equal Apple's (spec §C)")
    func rawValues() {
        #expect(
            [
                UNAuthorizationOptions.badge, .sound, .alert, .carPlay, .criticalAlert, .providesAppNotificationSettings, .provisional, .announcement,
                .timeSensitive,
            ]
            .map(\.rawValue) == [1, 2, 4, 8, 16, 32, 64, 128, 256]
        )
        #expect([UNNotificationPresentationOptions.badge, .sound, .alert, .list, .banner].map(\.rawValue) == [1, 2, 4, 8, 16])
        #expect(
            [UNNotificationCategoryOptions.customDismissAction, .allowInCarPlay, .hiddenPreviewsShowTitle, .hiddenPreviewsShowSubtitle].map(
                \.rawValue
            ) == [1, 2, 4, 8]
        )
        #expect([UNNotificationActionOptions.authenticationRequired, .destructive, .foreground].map(\.rawValue) == [1, 2, 4])
        #expect([UNAuthorizationStatus.notDetermined, .denied, .authorized, .provisional, .ephemeral].map(\.rawValue) == [0, 1, 2, 3, 4])
        let codes: [UNError.Code] = [
            .notificationsNotAllowed, .attachmentInvalidURL, .attachmentUnrecognizedType, .attachmentInvalidFileSize, .attachmentNotInDataStore,
            .attachmentMoveIntoDataStoreFailed, .attachmentCorrupt, .notificationInvalidNoDate, .notificationInvalidNoContent,
            .contentProvidingObjectNotAllowed, .contentProvidingInvalid, .badgeInputInvalid,
        ]
        #expect(codes.map(\.rawValue) == [1, 100, 101, 102, 103, 104, 105, 1400, 1401, 1500, 1501, 1600])
        #expect(UNError.errorDomain == "UNErrorDomain")
        #expect([UNNotificationContentExtensionResponseOption.doNotDismiss, .dismiss, .dismissAndForwardAction].map(\.rawValue) == [0, 1, 2])
        #expect([UNNotificationContentExtensionMediaPlayPauseButtonType.none, .default, .overlay].map(\.rawValue) == [0, 1, 2])
        #expect([UIBackgroundFetchResult.newData, .noData, .failed].map(\.rawValue) == [0, 1, 2])
        #expect([UNNotificationInterruptionLevel.passive, .active, .timeSensitive, .critical].map(\.rawValue) == [0, 1, 2, 3])
        #expect(UNNotificationDefaultActionIdentifier == "com.apple.UNNotificationDefaultActionIdentifier")
        #expect(UNNotificationDismissActionIdentifier == "com.apple.UNNotificationDismissActionIdentifier")
    }

    @Test("the first authorization request prompts; later ones report the stored answer")
    func authorization() async throws {
        var configuration = UNUserNotificationCenter.Configuration()
        configuration.userAllowsNotifications = false
        let center = UNUserNotificationCenter(clock: ManualNotificationClock(), configuration: configuration)
        #expect(await center.notificationSettings().authorizationStatus == .notDetermined)
        #expect(try await center.requestAuthorization(options: [.alert]) == false)
        #expect(await center.notificationSettings().authorizationStatus == .denied)
        #expect(try await center.requestAuthorization(options: [.alert]) == false)
        let content = UNMutableNotificationContent()
        content.body = "x"
        await #expect(throws: UNError(.notificationsNotAllowed, reason: "the app is not authorized to post notifications")) {
            try await center.add(UNNotificationRequest(identifier: "a", content: content, trigger: nil))
        }
    }

    @Test("provisional authorization is granted without a prompt and delivers quietly")
    func provisional() async throws {
        let runtime = try await makeRuntime(authorize: [.alert, .sound, .provisional])
        #expect(await runtime.center.notificationSettings().authorizationStatus == .provisional)
        let outcome = try await runtime.receiveRemoteNotification(["aps": ["alert": "quiet", "sound": "default"]])
        #expect(outcome.alertShown)
        #expect(await runtime.snapshot().threads.first?.notifications.first?.presentedAsBanner == false)
    }

    @Test("settings reflect the granted options; the completion form reports the same")
    func settings() async throws {
        let center = UNUserNotificationCenter(clock: ManualNotificationClock())
        center.requestAuthorization(options: [.alert, .badge]) { granted, error in
            #expect(granted && error == nil)
        }
        let settings = await center.notificationSettings()
        #expect(settings.alertSetting == .enabled && settings.badgeSetting == .enabled && settings.soundSetting == .disabled)
        center.getNotificationSettings { #expect($0.authorizationStatus == .authorized) }
    }

    @Test("current() is the running device's center, else the process center")
    func currentCenter() async throws {
        let runtime = try await makeRuntime()
        #expect(UNUserNotificationCenter.current() !== runtime.center)
        runtime.withCurrentCenter { #expect(UNUserNotificationCenter.current() === runtime.center) }
        #expect(UNUserNotificationCenter.current() === UNUserNotificationCenter.current())
    }

    @Test("adding a request with a pending identifier replaces it")
    func pendingReplacement() async throws {
        let center = try await makeRuntime().center
        try await center.add(request("a", title: "first", after: 60))
        try await center.add(request("b", title: "other", after: 60))
        try await center.add(request("a", title: "second", after: 120))
        let pending = await center.pendingNotificationRequests()
        #expect(pending.map(\.identifier) == ["b", "a"])
        #expect(pending.last?.content.title == "second")
    }

    @Test("setNotificationCategories replaces all categories")
    func categoriesReplace() async throws {
        let center = UNUserNotificationCenter(clock: ManualNotificationClock())
        center.setNotificationCategories([UNNotificationCategory(identifier: "a", actions: [], intentIdentifiers: [])])
        center.setNotificationCategories([UNNotificationCategory(identifier: "b", actions: [], intentIdentifiers: [])])
        #expect(await center.notificationCategories().map(\.identifier) == ["b"])
        center.getNotificationCategories { #expect($0.count == 1) }
    }

    @Test(
        "over 64 pending requests, soonest-firing keeps the 64 that fire first",
        arguments: [PendingRetentionRule.soonestFiring, .mostRecentlyAdded]
    )
    func pendingLimit(rule: PendingRetentionRule) async throws {
        let runtime = try await makeRuntime(configure: { $0.center.pendingRetentionRule = rule })
        // Request 0 fires last of all but is added first; request 64 fires first and is added last.
        try await runtime.center.add(request("r0", title: "late", after: 10_000))
        for index in 1...63 { try await runtime.center.add(request("r\(index)", title: "n", after: TimeInterval(100 + index))) }
        try await runtime.center.add(request("r64", title: "soonest", after: 61, repeats: true))
        let identifiers = Set(await runtime.center.pendingNotificationRequests().map(\.identifier))
        #expect(identifiers.count == 64)
        #expect(identifiers.contains("r64"))
        switch rule {
        case .soonestFiring: #expect(!identifiers.contains("r0"))
        case .mostRecentlyAdded: #expect(!identifiers.contains("r0") && identifiers.contains("r1"))
        }
    }

    @Test("the limit is configurable and the soonest rule can drop the newest request")
    func pendingLimitDropsNewest() async throws {
        let runtime = try await makeRuntime(configure: { $0.center.pendingRequestLimit = 2 })
        try await runtime.center.add(request("a", title: "a", after: 10))
        try await runtime.center.add(request("b", title: "b", after: 20))
        try await runtime.center.add(request("c", title: "c", after: 30))
        #expect(await runtime.center.pendingNotificationRequests().map(\.identifier) == ["a", "b"])
    }

    @Test("removal: pending and delivered by identifier, unknown identifiers ignored, remove all")
    func removal() async throws {
        let runtime = try await makeRuntime()
        let center = runtime.center
        try await center.add(request("p1", title: "p", after: 60))
        try await center.add(request("p2", title: "p", after: 60))
        center.removePendingNotificationRequests(withIdentifiers: ["p1", "unknown"])
        #expect(await center.pendingNotificationRequests().map(\.identifier) == ["p2"])
        center.removeAllPendingNotificationRequests()
        #expect(await center.pendingNotificationRequests().isEmpty)

        for id in ["d1", "d2", "d3"] { _ = try await runtime.receiveRemoteNotification(alertPayload(title: id), collapseID: id) }
        center.removeDeliveredNotifications(withIdentifiers: ["d2", "nope"])
        #expect(await center.deliveredNotifications().map(\.request.identifier) == ["d3", "d1"])
        center.removeAllDeliveredNotifications()
        #expect(await center.deliveredNotifications().isEmpty)
    }

    @Test("a local request whose identifier matches a delivered notification alerts again and moves to the top")
    func deliveredReplacementLocal() async throws {
        let clock = ManualNotificationClock()
        let runtime = try await makeRuntime(clock: clock)
        try await runtime.center.add(request("a", title: "one", after: nil))
        try await runtime.center.add(request("b", title: "two", after: nil))
        await runtime.fireDueNotifications()
        try await runtime.center.add(request("a", title: "three", after: 5))
        #expect(await runtime.center.deliveredNotifications().map(\.request.content.title) == ["two", "one"])
        clock.advance(by: 5)
        await runtime.fireDueNotifications()
        #expect(await runtime.center.deliveredNotifications().map(\.request.content.title) == ["three", "two"])
    }

    @Test("badge: nil leaves it, 0 removes it, a positive value sets it")
    func badgeRules() async throws {
        let runtime = try await makeRuntime()
        _ = try await runtime.receiveRemoteNotification(["aps": ["alert": "a", "badge": 5]])
        #expect(runtime.center.badgeCount == 5)
        _ = try await runtime.receiveRemoteNotification(["aps": ["alert": "b"]])
        #expect(runtime.center.badgeCount == 5)
        _ = try await runtime.receiveRemoteNotification(["aps": ["badge": 0]])
        #expect(runtime.center.badgeCount == 0)
        #expect(await runtime.snapshot().badge == nil)
    }

    @Test("badge needs badge authorization, and in the foreground the .badge presentation option")
    func badgeAuthorizationAndForeground() async throws {
        let unauthorized = try await makeRuntime(authorize: [.alert])
        _ = try await unauthorized.receiveRemoteNotification(["aps": ["alert": "a", "badge": 3]])
        #expect(unauthorized.center.badgeCount == 0)

        let delegate = RecordingCenterDelegate(options: [.banner, .list])
        let app = RecordingAppDelegate(notificationDelegate: delegate)
        let foreground = try await makeRuntime(appDelegate: { app })
        await foreground.launch()
        _ = try await foreground.receiveRemoteNotification(["aps": ["alert": "a", "badge": 3]])
        #expect(foreground.center.badgeCount == 0)
    }

    @Test("setBadgeCount: negative is badgeInputInvalid; both forms set the badge")
    func setBadgeCount() async throws {
        let runtime = try await makeRuntime()
        await #expect(throws: UNError(.badgeInputInvalid, reason: "negative badge count")) { try await runtime.center.setBadgeCount(-1) }
        try await runtime.center.setBadgeCount(7)
        #expect(runtime.center.badgeCount == 7)
        runtime.center.setBadgeCount(2) { #expect($0 == nil) }
        #expect(runtime.center.badgeCount == 2)
        let noBadge = try await makeRuntime(authorize: [.alert])
        noBadge.center.setBadgeCount(1) { #expect(($0 as? UNError)?.code == .notificationsNotAllowed) }
    }

    @Test("empty content is refused with notificationInvalidNoContent")
    func emptyContent() async throws {
        let center = try await makeRuntime().center
        await #expect(throws: UNError.self) {
            try await center.add(UNNotificationRequest(identifier: "e", content: UNMutableNotificationContent(), trigger: nil))
        }
        center.add(UNNotificationRequest(identifier: "e", content: UNMutableNotificationContent(), trigger: nil)) { error in
            #expect((error as? UNError)?.code == .notificationInvalidNoContent)
        }
    }

    @Test("the snapshot groups by thread, newest group first, and survives JSON")
    func snapshotGrouping() async throws {
        let runtime = try await makeRuntime()
        runtime.center.setNotificationCategories([
            UNNotificationCategory(identifier: "msg", actions: [UNNotificationAction(identifier: "reply", title: "Reply")], intentIdentifiers: [])
        ])
        _ = try await runtime.receiveRemoteNotification(alertPayload(title: "A1", aps: ["thread-id": "alice"]), collapseID: "a1")
        _ = try await runtime.receiveRemoteNotification(alertPayload(title: "B1", aps: ["thread-id": "bob", "category": "msg"]), collapseID: "b1")
        _ = try await runtime.receiveRemoteNotification(alertPayload(title: "A2", aps: ["thread-id": "alice"]), collapseID: "a2")
        _ = try await runtime.receiveRemoteNotification(alertPayload(title: "N"), collapseID: "n")
        let snapshot = await runtime.snapshot()
        #expect(snapshot.threads.map(\.threadIdentifier) == ["", "alice", "bob"])
        #expect(snapshot.threads[1].notifications.map(\.title) == ["A2", "A1"])
        #expect(snapshot.threads[2].notifications.first?.actions.map(\.title) == ["Reply"])
        let data = try JSONEncoder().encode(snapshot)
        #expect(try JSONDecoder().decode(NotificationCenterSnapshot.self, from: data) == snapshot)
        #expect(snapshot.consoleText.contains("▸ thread alice"))
    }

    @Test("payload keys map to content: subtitle, sound, thread, target, interruption level, relevance, loc-key")
    func payloadMapping() async throws {
        let runtime = try await makeRuntime(configure: { $0.localizedStrings = ["GAME_INVITE": "%@ invited you to %@"] })
        let payload: [String: Any] = [
            "aps": [
                "alert": ["title": "T", "subtitle": "S", "loc-key": "GAME_INVITE", "loc-args": ["Jenna", "chess"]],
                "sound": ["critical": 1, "name": "alarm.caf", "volume": 0.5], "target-content-id": "w1",
                "interruption-level": "time-sensitive", "relevance-score": 0.75, "thread-id": "t",
            ],
            "custom": ["k": true],
        ]
        let outcome = try await runtime.receiveRemoteNotification(payload)
        let content = try #require(outcome.displayedContent)
        #expect(content.body == "Jenna invited you to chess")
        #expect(content.subtitle == "S")
        #expect(content.sound?.isCritical == true && content.sound?.soundName == "alarm.caf" && content.sound?.criticalVolume == 0.5)
        #expect(content.targetContentIdentifier == "w1")
        #expect(content.interruptionLevel == .timeSensitive)
        #expect(content.relevanceScore == 0.75)
        let userInfo = UNNotificationContent(value: content).userInfo
        #expect((userInfo["custom"] as? [String: Any])?["k"] as? Bool == true)
        #expect(userInfo["aps"] != nil)
    }
}

func request(_ id: String, title: String, after seconds: TimeInterval?, repeats: Bool = false) -> UNNotificationRequest {
    let content = UNMutableNotificationContent()
    content.title = title
    let trigger = seconds.map { UNTimeIntervalNotificationTrigger(timeInterval: $0, repeats: repeats) }
    return UNNotificationRequest(identifier: id, content: content, trigger: trigger)
}
