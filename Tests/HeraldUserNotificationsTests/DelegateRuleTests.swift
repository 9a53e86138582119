import Foundation
import HeraldTestTiers
import HeraldUserNotifications
import Synchronization
import Testing

/// A delegate that implements only the `async` forms.
final class AsyncCenterDelegate: UNUserNotificationCenterDelegate, Sendable {
    let responses = Mutex<[String]>([])

    func userNotificationCenter(
        _ center: UNUserNotificationCenter,
        willPresent notification: UNNotification
    ) async
        -> UNNotificationPresentationOptions
    {
        [.list]
    }

    func userNotificationCenter(_ center: UNUserNotificationCenter, didReceive response: UNNotificationResponse) async {
        responses.withLock { $0.append(response.actionIdentifier) }
    }
}

@Suite("Notification delegate rules", .tier(.unit))
struct DelegateRuleTests {
    func foregroundRuntime(
        delegate: (any UNUserNotificationCenterDelegate & Sendable)?,
        clock: ManualNotificationClock = ManualNotificationClock()
    ) async throws -> DeviceRuntime {
        let app = RecordingAppDelegate(notificationDelegate: delegate)
        let runtime = try await makeRuntime(clock: clock, appDelegate: { app })
        await runtime.launch()
        return runtime
    }

    @Test("willPresent is called only in the foreground, and its options decide")
    func willPresentForegroundOnly() async throws {
        let delegate = RecordingCenterDelegate(options: [.list, .sound])
        let runtime = try await foregroundRuntime(delegate: delegate)
        let shown = try await runtime.receiveRemoteNotification(alertPayload(aps: ["sound": "default"]), collapseID: "fg")
        #expect(shown.presentation == [.list, .sound])
        #expect(shown.appCalls.contains(.willPresent))
        await runtime.moveToBackground()
        let background = try await runtime.receiveRemoteNotification(alertPayload(), collapseID: "bg")
        #expect(delegate.presentations.withLock { $0 } == ["fg"])
        #expect(background.presentation.contains(.banner))
    }

    @Test("without any delegate the notification's own options are used in the foreground")
    func noDelegateUsesOwnOptions() async throws {
        let runtime = try await foregroundRuntime(delegate: nil)
        let outcome = try await runtime.receiveRemoteNotification(["aps": ["alert": "hi", "sound": "default", "badge": 2]])
        #expect(outcome.presentation == [.list, .banner, .sound, .badge])
        #expect(runtime.center.badgeCount == 2)
    }

    @Test("a delegate that does not implement willPresent silences foreground notifications")
    func unimplementedWillPresent() async throws {
        let runtime = try await foregroundRuntime(delegate: SilentCenterDelegate())
        let outcome = try await runtime.receiveRemoteNotification(alertPayload())
        #expect(!outcome.alertShown)
        #expect(!outcome.appCalls.contains(.willPresent))
    }

    @Test("the async forms are used when the completion forms are not implemented")
    func asyncForms() async throws {
        let delegate = AsyncCenterDelegate()
        let runtime = try await foregroundRuntime(delegate: delegate)
        let outcome = try await runtime.receiveRemoteNotification(alertPayload(), collapseID: "a")
        #expect(outcome.presentation == [.list])
        try await runtime.tap("a")
        #expect(delegate.responses.withLock { $0 } == [UNNotificationDefaultActionIdentifier])
    }

    @Test("a willPresent handler that is never called means not presented, after the budget")
    func lateWillPresent() async throws {
        let clock = ManualNotificationClock()
        let delegate = RecordingCenterDelegate(options: nil)
        let runtime = try await foregroundRuntime(delegate: delegate, clock: clock)
        async let outcome = runtime.receiveRemoteNotification(alertPayload())
        await clock.waitForSleepers(count: 1)
        clock.advance(by: 30)
        #expect(try await !outcome.alertShown)
    }

    @Test("tapping sends the default action and removes the notification")
    func defaultAction() async throws {
        let delegate = RecordingCenterDelegate()
        let app = RecordingAppDelegate(notificationDelegate: delegate)
        let runtime = try await makeRuntime(appDelegate: { app })
        await runtime.launch()
        await runtime.suspend()
        _ = try await runtime.receiveRemoteNotification(alertPayload(), collapseID: "t")
        let outcome = try await runtime.tap("t")
        #expect(outcome.stateAfter == .foreground)
        #expect(outcome.appCalls == [.willEnterForeground, .didBecomeActive, .didReceiveResponse])
        #expect(delegate.responses.withLock { $0.map(\.1) } == [UNNotificationDefaultActionIdentifier])
        #expect(await runtime.center.deliveredNotifications().isEmpty)
        await #expect(throws: InteractionError.self) { try await runtime.tap("t") }
    }

    @Test("launch by tap: the app starts, sets its delegate during launch, and gets didReceive")
    func launchByTap() async throws {
        let delegate = RecordingCenterDelegate()
        let app = RecordingAppDelegate(notificationDelegate: delegate)
        let runtime = try await makeRuntime(appDelegate: { app })
        _ = try await runtime.receiveRemoteNotification(alertPayload(), collapseID: "t")
        let outcome = try await runtime.tap("t")
        #expect(outcome.appCalls == [.didFinishLaunching, .didBecomeActive, .didReceiveResponse])
        #expect(app.launchOptions.withLock { $0 } == [UIApplication.LaunchOptionsKey.remoteNotification.rawValue])
    }

    @Test("dismissing calls didReceive only with customDismissAction", arguments: [true, false])
    func dismissAction(customDismiss: Bool) async throws {
        let delegate = RecordingCenterDelegate()
        let app = RecordingAppDelegate(notificationDelegate: delegate)
        let runtime = try await makeRuntime(appDelegate: { app })
        await runtime.launch()
        await runtime.suspend()
        runtime.center.setNotificationCategories([
            UNNotificationCategory(identifier: "c", actions: [], intentIdentifiers: [], options: customDismiss ? [.customDismissAction] : [])
        ])
        _ = try await runtime.receiveRemoteNotification(alertPayload(aps: ["category": "c"]), collapseID: "d")
        let outcome = try await runtime.dismiss("d")
        #expect(outcome.deliveredToApp == customDismiss)
        #expect(delegate.responses.withLock { $0.map(\.1) } == (customDismiss ? [UNNotificationDismissActionIdentifier] : []))
        #expect(outcome.stateAfter == .suspended)
        #expect(await runtime.center.deliveredNotifications().isEmpty)
    }

    @Test("a background action wakes the app in the background, even after a force-quit")
    func backgroundAction() async throws {
        let delegate = RecordingCenterDelegate()
        let app = RecordingAppDelegate(notificationDelegate: delegate)
        let runtime = try await makeRuntime(appDelegate: { app })
        await runtime.launch()
        await runtime.terminateByUser()
        runtime.center.setNotificationCategories([
            UNNotificationCategory(
                identifier: "c",
                actions: [UNNotificationAction(identifier: "archive", title: "Archive", options: [.destructive])],
                intentIdentifiers: []
            )
        ])
        _ = try await runtime.receiveRemoteNotification(alertPayload(aps: ["category": "c"]), collapseID: "m")
        let outcome = try await runtime.perform(actionIdentifier: "archive", on: "m")
        #expect(outcome.appCalls == [.didFinishLaunching, .didReceiveResponse])
        #expect(outcome.stateAfter == .suspended)
        #expect(delegate.responses.withLock { $0.map(\.1) } == ["archive"])
    }

    @Test("actions: unknown identifiers are refused; authenticationRequired needs an unlocked device")
    func actionChecks() async throws {
        let runtime = try await makeRuntime()
        runtime.center.setNotificationCategories([
            UNNotificationCategory(
                identifier: "bank",
                actions: [UNNotificationAction(identifier: "pay", title: "Pay", options: [.authenticationRequired])],
                intentIdentifiers: []
            )
        ])
        _ = try await runtime.receiveRemoteNotification(alertPayload(aps: ["category": "bank"]), collapseID: "b")
        await #expect(throws: InteractionError.self) { try await runtime.perform(actionIdentifier: "steal", on: "b") }
        await runtime.setDeviceLocked(true)
        await #expect(throws: InteractionError.self) { try await runtime.perform(actionIdentifier: "pay", on: "b") }
        await runtime.setDeviceLocked(false)
        _ = try await runtime.perform(actionIdentifier: "pay", on: "b")
        #expect(await runtime.center.deliveredNotifications().isEmpty)
    }

    @Test("passive notifications go to the list without a banner or sound")
    func passive() async throws {
        let runtime = try await makeRuntime()
        let outcome = try await runtime.receiveRemoteNotification(["aps": ["alert": "fyi", "sound": "default", "interruption-level": "passive"]])
        #expect(outcome.presentation == [.list])
    }

    @Test("a delegate that never calls didReceive's handler is cut off after the budget")
    func lateDidReceive() async throws {
        final class StuckDelegate: UNUserNotificationCenterDelegate, Sendable {
            func userNotificationCenter(
                _ center: UNUserNotificationCenter,
                didReceive response: UNNotificationResponse,
                withCompletionHandler completionHandler: @escaping @Sendable () -> Void
            ) {}
        }
        let clock = ManualNotificationClock()
        let runtime = try await foregroundRuntime(delegate: StuckDelegate(), clock: clock)
        _ = try await runtime.receiveRemoteNotification(alertPayload(), collapseID: "s")
        await runtime.moveToBackground()
        _ = try await runtime.receiveRemoteNotification(alertPayload(), collapseID: "s2")
        async let tap = runtime.tap("s2")
        await clock.waitForSleepers(count: 1)
        clock.advance(by: 30)
        #expect(try await tap.deliveredToApp)
        #expect(await runtime.events.contains { $0.kind == .expired })
    }
}
