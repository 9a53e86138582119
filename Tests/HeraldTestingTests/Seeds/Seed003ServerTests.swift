import Foundation
import HeraldCore
import HeraldSimulator
import HeraldStore
import HeraldTestSupport
import HeraldTestTiers
import HeraldTesting
import HeraldUserNotifications
import Testing

// Seed 003 ("How to handle notifications in background mode") through a real server: which callback runs, and
// whether the alert shows, for each app state with and without content-available — the provider sends over
// HTTP/2 with the push type and priority Apple requires (alert at 10; background at 5). The seed's app
// predates iOS 10: its notification delegate implements neither willPresent nor didReceive.

@Suite("Seed 003 end to end: app states decide which callback runs", .serialized, .tier(.inProcess))
struct Seed003ServerTests {
    static let app = Seed003.bundleID

    static func manifest(state: AppLifecycleState, delegate: String? = nil, extra: String = "") -> String {
        Seed003.manifest(name: "Podcast phone", state: state, delegate: delegate, extra: extra)
    }

    static let silent = Seed003.silent

    /// Uses up the budget of one background push with a silent push, then sends another, which the device holds:
    /// returns the token and the held push's apns-id.
    static func sendHeldPush(_ server: HeraldTestServer, _ phone: TestDevice, _ provider: SeedProvider) async throws -> (token: String, held: String)
    {
        let token = try phone.token(for: app)
        let first = try await provider.send(silent, to: token, pushType: .background)
        try await server.expectDelivered(first, reporting: [.background])
        return (token, try await provider.send(silent, to: token, pushType: .background))
    }

    @Test("the seed's scenario table, row for row, from the provider's HTTP/2 request", arguments: Seed003.table)
    func scenario(_ row: Seed003.Row) async throws {
        try await withSeed(manifest: Self.manifest(state: row.state), topic: Self.app) { server, phone, provider in
            let payload = Seed003.payload(contentAvailable: row.contentAvailable)
            let apnsID = try await provider.send(payload, to: phone.token(for: Self.app), collapseID: "push")
            let last = try #require(row.events.last.map { DeviceReport.Event(rawValue: $0) })
            try await phone.expectReport(last, for: apnsID, within: .seconds(10))
            let reports = phone.reports(for: apnsID)
            #expect(reports.events == row.events)
            #expect(reports.first(.dropped)?.string("reason") == row.dropped?.rawValue)
            let shown = await phone.notifications(in: Self.app)
            #expect(shown.map(\.body) == (row.events.contains("displayed") ? ["New episode"] : []))

            let trace = try await server.expectDelivered(apnsID, reporting: row.events.map { TraceEventKind(rawValue: $0) })
            #expect(trace.reportKinds == row.events)
            if let stateWhileHandling = row.stateWhileHandling {
                let background = try await server.expectTraceEvent(.background, of: apnsID)
                #expect(background.detail["callback"] == .string(AppCall.didReceiveRemoteNotification.rawValue))
                #expect(background.detail["stateWhileHandling"] == .string(stateWhileHandling.rawValue))
                #expect(background.detail["stateBefore"] == .string(row.state.rawValue))
                #expect(background.detail["contentAvailable"] == .bool(row.contentAvailable))
            } else {
                #expect(!trace.contains { $0.kind == .background })
            }
            if let dropped = row.dropped {
                #expect(try await server.expectTraceEvent(.dropped, of: apnsID).detail["reason"] == .string(dropped.rawValue))
            }
            if let tapCalls = row.tapCalls {
                let tap = try await phone.tap("push", in: Self.app)
                let action = try #require(tap.first(.action))
                #expect(action.strings("callbacks") == tapCalls.map(\.rawValue))
                #expect(action.string("stateAfter") == "foreground")
                let traced = try await server.expectTraceEvent(.action, of: apnsID)
                #expect(traced.detail["action"] == .string(UNNotificationDefaultActionIdentifier))
                #expect(traced.detail["callbacks"] == .array(tapCalls.map { .string($0.rawValue) }))
                try await server.expectTrace(of: apnsID, contains: .removed)
                #expect(try await phone.app(Self.app).state == .foreground)
            }
        }
    }

    @Test("a delegate with willPresent: in the foreground it decides what shows (and the app hears of it); in the background neither runs")
    func willPresent() async throws {
        let delegate = #"{"willPresent": ["banner", "list", "sound"]}"#
        for state in [AppLifecycleState.foreground, .background] {
            try await withSeed(manifest: Self.manifest(state: state, delegate: delegate), topic: Self.app) { server, phone, provider in
                let apnsID = try await provider.send(#"{"aps":{"alert":"New episode","sound":"default"}}"#, to: phone.token(for: Self.app))
                let displayed = try await phone.expectReport(.displayed, for: apnsID, within: .seconds(10))
                #expect(Set(displayed.strings("presentation")) == ["list", "banner", "sound"])
                // In the foreground the app's delegate hears of every remote notification too (as in the seed's
                // table); in the background an alert without content-available reaches no code until a tap.
                let foreground = state == .foreground
                let kinds: [TraceEventKind] = foreground ? [.displayed, .background] : [.displayed]
                let trace = try await server.expectDelivered(apnsID, reporting: kinds)
                #expect(trace.reportKinds == kinds.map(\.rawValue))
                let calls = try await phone.callbacks(in: Self.app)
                #expect(calls.contains(.willPresent) == foreground, "in \(state)")
                #expect(calls.contains(.didReceiveRemoteNotification) == foreground, "in \(state)")
                if foreground {
                    #expect(calls.firstIndex(of: .willPresent)! < calls.firstIndex(of: .didReceiveRemoteNotification)!)
                }
            }
        }
    }

    @Test("a silent push (background, priority 5) wakes a suspended app, which goes back to sleep; nothing shows")
    func silentSuspended() async throws {
        try await withSeed(manifest: Self.manifest(state: .suspended), topic: Self.app) { server, phone, provider in
            let apnsID = try await provider.send(Self.silent, to: phone.token(for: Self.app), pushType: .background)
            let background = try await phone.expectReport(.background, for: apnsID, within: .seconds(10))
            #expect(background.string("stateWhileHandling") == "background")
            #expect(background.string("stateAfter") == "suspended")
            #expect(background.string("fetchResult") == "newData")
            #expect(try await phone.callbacks(in: Self.app).last == .didReceiveRemoteNotification)
            #expect(try await phone.app(Self.app).state == .suspended)
            #expect(await phone.notifications(in: Self.app).isEmpty)

            let trace = try await server.expectDelivered(apnsID, reporting: [.background])
            #expect(trace.reportKinds == ["background"])
            let traced = try await server.expectTraceEvent(.background, of: apnsID)
            #expect(traced.detail["stateAfter"] == .string("suspended"))
            #expect(traced.detail["fetchResult"] == .string("newData"))
        }
    }

    @Test("a silent push launches an app the system ended, but not one the user force-quit")
    func silentNotRunning() async throws {
        try await withSeed(manifest: Self.manifest(state: .notRunning), topic: Self.app) { server, phone, provider in
            let apnsID = try await provider.send(Self.silent, to: phone.token(for: Self.app), pushType: .background)
            let background = try await phone.expectReport(.background, for: apnsID, within: .seconds(10))
            #expect(background.strings("callbacks") == [AppCall.didFinishLaunching.rawValue, AppCall.didReceiveRemoteNotification.rawValue])
            try await server.expectDelivered(apnsID, reporting: [.background])
        }
        try await withSeed(manifest: Self.manifest(state: .terminatedByUser), topic: Self.app) { server, phone, provider in
            let apnsID = try await provider.send(Self.silent, to: phone.token(for: Self.app), pushType: .background)
            let dropped = try await phone.expectReport(.dropped, for: apnsID, within: .seconds(10))
            #expect(dropped.string("reason") == DropReason.appTerminatedByUser.rawValue)
            let trace = try await server.expectDelivered(apnsID, reporting: [.dropped])
            #expect(trace.reportKinds == ["dropped"])
            #expect(!(try await phone.callbacks(in: Self.app)).contains(.didReceiveRemoteNotification))
        }
    }

    @Test("without UIBackgroundModes remote-notification a silent push does not wake the app")
    func noBackgroundMode() async throws {
        let manifest = Self.manifest(state: .suspended, extra: #", "backgroundModes": []"#)
        try await withSeed(manifest: manifest, topic: Self.app) { server, phone, provider in
            let apnsID = try await provider.send(Self.silent, to: phone.token(for: Self.app), pushType: .background)
            try await phone.expectReport(.dropped, for: apnsID, within: .seconds(10))
            let dropped = try await server.expectTraceEvent(.dropped, of: apnsID, within: .seconds(10))
            #expect(dropped.detail["reason"] == .string(DropReason.noBackgroundMode.rawValue))
        }
    }

    @Test("over the background budget a push is held; when the user opens the app it reaches the app and its trace says so")
    func heldUntilOpened() async throws {
        let manifest = Self.manifest(state: .suspended, extra: Seed003.budgetOfOne)
        try await withSeed(manifest: manifest, topic: Self.app) { server, phone, provider in
            let (_, held) = try await Self.sendHeldPush(server, phone, provider)
            let dropped = try await server.expectTraceEvent(.dropped, of: held, within: .seconds(10))
            #expect(dropped.detail["reason"] == .string(DropReason.backgroundPushBudget.rawValue))
            #expect(dropped.detail["held"] == .bool(true))

            let opened = try await phone.setState(.foreground, in: Self.app)
            #expect(opened.first(.background)?.detail["held"] == .bool(true))
            let background = try await server.expectTraceEvent(.background, of: held, within: .seconds(10))
            #expect(background.detail["held"] == .bool(true))
            #expect(background.detail["stateAfter"] == .string("foreground"))
            #expect(try await server.trace(of: held).reportKinds == ["dropped", "background"])
        }
    }

    @Test("a held push also reaches the app when the user opens it by tapping a notification; its trace says so")
    func heldUntilTapped() async throws {
        let manifest = Self.manifest(state: .suspended, extra: Seed003.budgetOfOne)
        try await withSeed(manifest: manifest, topic: Self.app) { server, phone, provider in
            let (token, held) = try await Self.sendHeldPush(server, phone, provider)
            try await server.expectDelivered(held, reporting: [.dropped])
            let alert = try await provider.send(#"{"aps":{"alert":"New episode"}}"#, to: token, collapseID: "episode")
            try await server.expectDelivered(alert, reporting: [.displayed])

            let reports = try await phone.tap("episode", in: Self.app)
            #expect(reports.events == ["action", "removed", "background"])
            let background = try await server.expectTraceEvent(.background, of: held, within: .seconds(10))
            #expect(background.detail["held"] == .bool(true))
            #expect(try await server.trace(of: held).reportKinds == ["dropped", "background"])
            try await server.expectTrace(of: alert, contains: .action)
            #expect(try await server.trace(of: alert).reportKinds == ["displayed", "action", "removed"])
        }
    }

    @Test("an app that never calls the fetch handler runs out of its 30 s on the device's clock")
    func fetchBudget() async throws {
        let clock = ManualNotificationClock()
        let manifest = Self.manifest(state: .suspended, delegate: #"{"fetchCompletion": "never"}"#)
        try await withSeed(manifest: manifest, topic: Self.app, clock: clock) { server, phone, provider in
            let apnsID = try await provider.send(Self.silent, to: phone.token(for: Self.app), pushType: .background)
            try await eventually("the fetch handler's 30 s starting on the device's clock") { clock.sleeperCount >= 1 }
            clock.advance(by: 30)
            let background = try await phone.expectReport(.background, for: apnsID, within: .seconds(10))
            #expect(background.detail["fetchExpired"] == .bool(true))
            #expect(background.detail["fetchResult"] == .null)
            let traced = try await server.expectTraceEvent(.background, of: apnsID)
            #expect(traced.detail["fetchExpired"] == .bool(true))
        }
    }
}
