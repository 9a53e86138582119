import Foundation
import HeraldTestTiers
import HeraldUserNotifications
import Synchronization
import Testing

// Seed 003 ("How to handle notifications in background mode"). The app has `remote-notification`
// in UIBackgroundModes and implements application(_:didReceiveRemoteNotification:fetchCompletionHandler:).
// The seed predates iOS 10; its app sets a notification-center delegate that does not implement
// willPresent/didReceive, which makes iOS 10+ behave as the seed describes (foreground alerts are
// not shown; a tap goes to the app delegate).

/// One row of the seed's scenario table.
struct AppStateScenario: CustomTestStringConvertible, Sendable {
    let contentAvailable: Bool
    let state: AppLifecycleState
    /// "Alert của hệ thống được hiện thị" — the system alert is shown.
    let alertShown: Bool
    /// What the app delegate receives when the push arrives.
    let callsOnArrival: [String]
    /// The state the app is in while the system handles the push.
    let stateWhileHandling: AppLifecycleState
    /// What the app delegate receives when the user then taps the alert (nil: not part of the row).
    let callsOnTap: [String]?

    var testDescription: String { "content-available \(contentAvailable ? "present" : "absent") × \(state.rawValue)" }

    static let table: [AppStateScenario] = [
        // With content-available
        AppStateScenario(
            contentAvailable: true,
            state: .foreground,
            alertShown: false,
            callsOnArrival: ["didReceiveRemoteNotification:foreground"],
            stateWhileHandling: .foreground,
            callsOnTap: nil
        ),
        AppStateScenario(
            contentAvailable: true,
            state: .background,
            alertShown: true,
            callsOnArrival: ["didReceiveRemoteNotification:background"],
            stateWhileHandling: .background,
            callsOnTap: nil
        ),
        AppStateScenario(
            contentAvailable: true,
            state: .suspended,
            alertShown: true,
            callsOnArrival: ["didReceiveRemoteNotification:background"],
            stateWhileHandling: .background,
            callsOnTap: nil
        ),
        AppStateScenario(
            contentAvailable: true,
            state: .terminatedByUser,
            alertShown: true,
            callsOnArrival: [],
            stateWhileHandling: .terminatedByUser,
            callsOnTap: nil
        ),
        // Without content-available
        AppStateScenario(
            contentAvailable: false,
            state: .foreground,
            alertShown: false,
            callsOnArrival: ["didReceiveRemoteNotification:foreground"],
            stateWhileHandling: .foreground,
            callsOnTap: nil
        ),
        AppStateScenario(
            contentAvailable: false,
            state: .suspended,
            alertShown: true,
            callsOnArrival: [],
            stateWhileHandling: .suspended,
            callsOnTap: ["didReceiveRemoteNotification:foreground"]
        ),
        AppStateScenario(
            contentAvailable: false,
            state: .background,
            alertShown: true,
            callsOnArrival: [],
            stateWhileHandling: .background,
            callsOnTap: ["didReceiveRemoteNotification:foreground"]
        ),
        AppStateScenario(
            contentAvailable: false,
            state: .terminatedByUser,
            alertShown: true,
            callsOnArrival: [],
            stateWhileHandling: .terminatedByUser,
            callsOnTap: ["didFinishLaunching", "didReceiveRemoteNotification:foreground"]
        ),
    ]
}

/// Puts a freshly created runtime's app into a state.
func bring(_ runtime: DeviceRuntime, to state: AppLifecycleState) async {
    switch state {
    case .notRunning:
        break
    case .foreground:
        await runtime.launch()
    case .background:
        await runtime.launch()
        await runtime.moveToBackground()
    case .suspended:
        await runtime.launch()
        await runtime.suspend()
    case .terminatedByUser:
        await runtime.launch()
        await runtime.terminateByUser()
    }
}

@Suite("Seed 003: app states and remote notifications", .tier(.unit))
struct Seed003AppStateTests {
    @Test("the seed's scenario table, row for row", arguments: AppStateScenario.table)
    func scenario(_ row: AppStateScenario) async throws {
        let app = RecordingAppDelegate(notificationDelegate: SilentCenterDelegate())
        let runtime = try await makeRuntime(appDelegate: { app })
        await bring(runtime, to: row.state)
        #expect(await runtime.appState == row.state)
        let before = app.calls.withLock { $0.count }

        var aps: [String: Any] = ["alert": "New episode", "sound": "default"]
        if row.contentAvailable { aps["content-available"] = 1 }
        let outcome = try await runtime.receiveRemoteNotification(["aps": aps], collapseID: "push")

        #expect(outcome.alertShown == row.alertShown)
        #expect(Array(app.calls.withLock { $0 }[before...]) == row.callsOnArrival)
        #expect(outcome.stateWhileHandling == row.stateWhileHandling)
        if row.alertShown {
            #expect(await runtime.center.deliveredNotifications().map(\.request.identifier) == ["push"])
        } else {
            #expect(await runtime.center.deliveredNotifications().isEmpty)
        }
        if let callsOnTap = row.callsOnTap {
            let beforeTap = app.calls.withLock { $0.count }
            try await runtime.tap("push")
            #expect(Array(app.calls.withLock { $0 }[beforeTap...]) == callsOnTap)
            #expect(await runtime.appState == .foreground)
            if callsOnTap.contains("didFinishLaunching") {
                #expect(app.launchOptions.withLock { $0 } == [UIApplication.LaunchOptionsKey.remoteNotification.rawValue])
            }
        }
    }

    @Test("content-available: 0 still counts; only removing the key turns it off (seed 003)")
    func contentAvailableZero() async throws {
        let app = RecordingAppDelegate()
        let runtime = try await makeRuntime(appDelegate: { app })
        await bring(runtime, to: .suspended)
        let outcome = try await runtime.receiveRemoteNotification(["aps": ["content-available": 0]])
        #expect(outcome.isContentAvailable)
        #expect(outcome.appCalls == [.didReceiveRemoteNotification])
        #expect(outcome.stateAfter == .suspended)
    }

    @Test("a background push launches an app the system ended (not the user) into the background")
    func launchesNotRunningApp() async throws {
        let app = RecordingAppDelegate()
        let runtime = try await makeRuntime(appDelegate: { app })
        let outcome = try await runtime.receiveRemoteNotification(["aps": ["content-available": 1]])
        #expect(outcome.appCalls == [.didFinishLaunching, .didReceiveRemoteNotification])
        #expect(outcome.stateWhileHandling == .background)
        #expect(outcome.fetchResult == .newData)
        #expect(!outcome.alertShown)
    }

    @Test("without UIBackgroundModes remote-notification a background push does not wake the app")
    func needsBackgroundMode() async throws {
        let app = RecordingAppDelegate()
        let runtime = try await makeRuntime(configure: { $0.backgroundModes = [] }, appDelegate: { app })
        await bring(runtime, to: .suspended)
        let outcome = try await runtime.receiveRemoteNotification(["aps": ["content-available": 1]])
        #expect(outcome.appCalls.isEmpty)
        #expect(outcome.stateAfter == .suspended)
    }

    @Test("the fetch completion handler has 30 s on the clock")
    func fetchBudget() async throws {
        let clock = ManualNotificationClock()
        let app = RecordingAppDelegate(fetchResult: nil)
        let runtime = try await makeRuntime(clock: clock, appDelegate: { app })
        await bring(runtime, to: .suspended)
        async let outcome = runtime.receiveRemoteNotification(["aps": ["content-available": 1]])
        await clock.waitForSleepers(count: 1)
        clock.advance(by: 29.9)
        #expect(clock.sleeperCount == 1)
        clock.advance(by: 0.1)
        let result = try await outcome
        #expect(result.fetchExpired)
        #expect(result.fetchResult == nil)
        #expect(result.stateAfter == .suspended)
    }

    @Test("background pushes are budgeted: over 3 per hour the newest is held until the app opens")
    func backgroundBudget() async throws {
        let clock = ManualNotificationClock()
        let app = RecordingAppDelegate()
        let runtime = try await makeRuntime(clock: clock, appDelegate: { app })
        await bring(runtime, to: .suspended)
        for index in 1...3 {
            let outcome = try await runtime.receiveRemoteNotification(["aps": ["content-available": 1], "n": index])
            #expect(!outcome.held)
        }
        let fourth = try await runtime.receiveRemoteNotification(["aps": ["content-available": 1], "n": 4])
        let fifth = try await runtime.receiveRemoteNotification(["aps": ["content-available": 1], "n": 5])
        #expect(fourth.held && fifth.held)
        #expect(fifth.appCalls.isEmpty)
        #expect(await runtime.events.contains { $0.kind == .discarded })
        let calls = await runtime.launch()
        #expect(calls.last == .didReceiveRemoteNotification)
        clock.advance(by: 3600)
        await runtime.suspend()
        #expect(!(try await runtime.receiveRemoteNotification(["aps": ["content-available": 1]]).held))
    }

    @Test("killing the app discards a held background push")
    func killDiscardsHeld() async throws {
        let app = RecordingAppDelegate()
        let runtime = try await makeRuntime(
            configure: { $0.backgroundPushBudget = BackgroundPushBudget(limit: 0, window: 3600) },
            appDelegate: { app }
        )
        await bring(runtime, to: .suspended)
        #expect(try await runtime.receiveRemoteNotification(["aps": ["content-available": 1]]).held)
        await runtime.terminateByUser()
        let calls = await runtime.launch()
        #expect(!calls.contains(.didReceiveRemoteNotification))
    }
}
