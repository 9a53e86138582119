import Foundation
import HeraldCore
import HeraldSimulator
import HeraldTestSupport
import HeraldTestTiers
import HeraldUserNotifications
import Testing

// Seed 003 ("How to handle notifications in background mode"): which callback runs, and whether
// the alert shows, for each app state with and without content-available. The seed's app predates
// iOS 10: its notification delegate implements neither willPresent nor didReceive.

@Suite("Seed 003 on a simulated device: app states and background pushes", .tier(.unit))
struct Seed003AppStateTests {
    static let bundleID = Seed003.bundleID

    static func manifest(state: AppLifecycleState, extra: String = "") -> String { Seed003.manifest(state: state, extra: extra) }

    @Test("the seed's scenario table, row for row, from the provider's payload bytes", arguments: Seed003.table)
    func scenario(_ row: Seed003.Row) async throws {
        let device = try await makeDevice(Self.manifest(state: row.state))
        let reports = await device.receive(push(Seed003.payload(contentAvailable: row.contentAvailable), to: Self.bundleID, collapseID: "push"))
        #expect(reports.events == row.events)
        #expect(reports.first(.dropped)?.string("reason") == row.dropped?.rawValue)
        if let stateWhileHandling = row.stateWhileHandling {
            let background = try #require(reports.first(.background))
            #expect(background.string("callback") == AppCall.didReceiveRemoteNotification.rawValue)
            #expect(background.string("stateWhileHandling") == stateWhileHandling.rawValue)
            #expect(background.string("stateBefore") == row.state.rawValue)
            #expect(background.detail["contentAvailable"] == .bool(row.contentAvailable))
        }
        if let tapCalls = row.tapCalls {
            let tap = try await device.tap("push", in: Self.bundleID)
            let action = try #require(tap.first(.action))
            #expect(action.strings("callbacks") == tapCalls.map(\.rawValue))
            #expect(action.string("stateAfter") == "foreground")
            #expect(action.string("action") == UNNotificationDefaultActionIdentifier)
        }
    }

    @Test("a silent push wakes a suspended app and it goes back to sleep")
    func silentSuspended() async throws {
        let device = try await makeDevice(Self.manifest(state: .suspended))
        let reports = await device.receive(push(Seed003.silent, to: Self.bundleID, pushType: .background))
        #expect(reports.events == ["background"])
        let background = try #require(reports.first(.background))
        #expect(background.string("stateWhileHandling") == "background")
        #expect(background.string("stateAfter") == "suspended")
        #expect(background.string("fetchResult") == "newData")
    }

    @Test("a silent push launches an app the system ended, but not one the user force-quit")
    func silentNotRunning() async throws {
        let device = try await makeDevice(Self.manifest(state: .notRunning))
        let launched = await device.receive(push(Seed003.silent, to: Self.bundleID, pushType: .background))
        #expect(
            launched.first(.background)?.strings("callbacks") == [AppCall.didFinishLaunching.rawValue, AppCall.didReceiveRemoteNotification.rawValue]
        )

        let killed = try await makeDevice(Self.manifest(state: .terminatedByUser))
        let reports = await killed.receive(push(Seed003.silent, to: Self.bundleID, pushType: .background))
        #expect(reports.events == ["dropped"])
        #expect(reports.first(.dropped)?.string("reason") == DropReason.appTerminatedByUser.rawValue)
    }

    @Test("without UIBackgroundModes remote-notification a silent push does not wake the app")
    func noBackgroundMode() async throws {
        let device = try await makeDevice(Self.manifest(state: .suspended, extra: #", "backgroundModes": []"#))
        let reports = await device.receive(push(Seed003.silent, to: Self.bundleID, pushType: .background))
        #expect(reports.first(.dropped)?.string("reason") == DropReason.noBackgroundMode.rawValue)
    }

    @Test("over the background budget a push is held, and reaches the app when the user opens it")
    func budget() async throws {
        let device = try await makeDevice(Self.manifest(state: .suspended, extra: Seed003.budgetOfOne))
        #expect(await device.receive(push(Seed003.silent, to: Self.bundleID)).events == ["background"])
        let heldID = NotificationID.random()
        let held = await device.receive(push(Seed003.silent, to: Self.bundleID, apnsID: heldID))
        #expect(held.first(.dropped)?.string("reason") == DropReason.backgroundPushBudget.rawValue)
        #expect(held.first(.dropped)?.detail["held"] == .bool(true))
        let opened = try await device.setState(.foreground, in: Self.bundleID)
        #expect(opened.events == ["background"])
        #expect(opened.first(.background)?.detail["held"] == .bool(true))
        // The report names the held push, so that a device link can add it to that push's trace.
        #expect(opened.first(.background)?.apnsID == heldID)
        #expect(opened.first(.background)?.notificationIdentifier == heldID.text)
    }

    @Test("a tap on a notification opens the app and delivers the held push: its background report names it")
    func heldPushDeliveredByTap() async throws {
        let device = try await makeDevice(Self.manifest(state: .suspended, extra: Seed003.budgetOfOne))
        _ = await device.receive(push(Seed003.silent, to: Self.bundleID))
        let heldID = NotificationID.random()
        _ = await device.receive(push(Seed003.silent, to: Self.bundleID, apnsID: heldID))
        _ = await device.receive(push(#"{"aps":{"alert":"New episode"}}"#, to: Self.bundleID, collapseID: "alert"))
        let reports = try await device.tap("alert", in: Self.bundleID)
        #expect(reports.events == ["action", "removed", "background"])
        let background = try #require(reports.first(.background))
        #expect(background.apnsID == heldID)
        #expect(background.detail["held"] == .bool(true))
        #expect(background.string("stateAfter") == "foreground")
        // Delivered once: opening the app again later reports nothing more.
        _ = try await device.setState(.background, in: Self.bundleID)
        #expect(try await device.setState(.foreground, in: Self.bundleID).isEmpty)
    }

    @Test("a held push the app never got (it was force-quit) is not reported when the app opens later")
    func heldPushDiscardedByKill() async throws {
        let device = try await makeDevice(Self.manifest(state: .suspended, extra: Seed003.budgetOfOne))
        _ = await device.receive(push(Seed003.silent, to: Self.bundleID))
        _ = await device.receive(push(Seed003.silent, to: Self.bundleID))
        _ = try await device.setState(.terminatedByUser, in: Self.bundleID)
        let opened = try await device.setState(.foreground, in: Self.bundleID)
        #expect(opened.first(.background) == nil)
    }

    @Test("an app that never calls the fetch handler runs out of its 30 s on the clock")
    func fetchBudget() async throws {
        let clock = ManualNotificationClock()
        let manifest = Seed003.manifest(state: .suspended, delegate: #"{"fetchCompletion": "never"}"#)
        let device = try await makeDevice(manifest, clock: clock)
        async let reports = device.receive(push(Seed003.silent, to: Self.bundleID))
        await clock.waitForSleepers(count: 1)
        clock.advance(by: 30)
        let background = try #require(await reports.first(.background))
        #expect(background.detail["fetchExpired"] == .bool(true))
        #expect(background.detail["fetchResult"] == .null)
    }
}
