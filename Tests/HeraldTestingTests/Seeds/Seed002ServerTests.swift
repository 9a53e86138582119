import Foundation
import HeraldCore
import HeraldSimulator
import HeraldStore
import HeraldTestSupport
import HeraldTestTiers
import HeraldTesting
import HeraldUserNotifications
import Testing

// Seed 002 ("IOS10 push must see UNNotificationContentExtension") through a real server: the provider sends the
// seed's mutable payload; the service extension rewrites the text and sets category1; the content extension the
// Info.plist keys register for category1 (ratio 0.5, a default media button at (100, 100, 100, 100) in blue)
// draws the expanded notification; the user plays and pauses, comments with text, dismisses.
@Suite("Seed 002 end to end: category routing, the content extension, media and actions", .serialized, .tier(.inProcess))
struct Seed002ServerTests {
    static let app = Seed002.bundleID

    static func manifest(actionResponse: String? = nil) -> String {
        Seed002.manifest(name: "Xu's phone", actionResponse: actionResponse)
    }

    /// The payload the seed prints in didReceiveNotification:.
    static let payload = Seed002.payload

    /// Sends the seed's payload with collapse id "xu" and waits until it is shown.
    static func sendSeedPayload(_ server: HeraldTestServer, _ phone: TestDevice, _ provider: SeedProvider) async throws -> String {
        let apnsID = try await provider.send(payload, to: phone.token(for: app), collapseID: "xu")
        try await phone.expectNotification(titled: "I am heading", in: app, within: .seconds(10))
        try await server.expectDelivered(apnsID, reporting: [.modified, .displayed])
        return apnsID
    }

    @Test("the service extension sets category1: the notification shows its actions, the badge, and names the content extension")
    func categoryAndActions() async throws {
        try await withSeed(manifest: Self.manifest(), topic: Self.app) { server, phone, provider in
            let apnsID = try await Self.sendSeedPayload(server, phone, provider)
            let shown = try #require(await phone.notifications(in: Self.app).first)
            #expect(shown.subtitle == "I am sub title")
            #expect(shown.body == "different from Xu")
            #expect(shown.categoryIdentifier == "category1")
            #expect(shown.contentExtension == "NotificationContent")
            #expect(shown.actions.map(\.identifier) == ["comment", "like", "cancel"])
            #expect(shown.actions.first?.textInputPlaceholder == "Say something")
            let app = try await phone.app(Self.app)
            #expect(app.center.badge == 1)
            #expect(app.categories.first?.actions.map(\.title) == ["Comment", "Like", "Cancel"])
            #expect(app.categories.first?.actions.first?.textInputButtonTitle == "Send")

            let modified = try await server.expectTraceEvent(.modified, of: apnsID)
            #expect(modified.detailValue("before.categoryIdentifier") == .string(""))
            #expect(modified.detailValue("after.categoryIdentifier") == .string("category1"))
            let displayed = try await server.expectTraceEvent(.displayed, of: apnsID)
            #expect(displayed.detail["contentExtension"] == .string("NotificationContent"))
            #expect(displayed.detail["badge"] == .int(1))
            #expect(displayed.detail["categoryIdentifier"] == .string("category1"))
        }
    }

    @Test("expanding draws the content extension; the media button plays, then pauses; the trace records expanded and media")
    func expandAndPlay() async throws {
        try await withSeed(manifest: Self.manifest(), topic: Self.app) { server, phone, provider in
            let apnsID = try await Self.sendSeedPayload(server, phone, provider)
            let expanded = try #require(try await phone.expand("xu", in: Self.app).first(.expanded))
            #expect(expanded.value("contentExtension.size") == .array([.int(320), .int(160)]))
            #expect(
                expanded.value("contentExtension.lines")
                    == .array([.string("Hello, I'm Xu"), .string("http://upload.univs.cn/2012/0104/1325645511371.jpg")])
            )
            #expect(expanded.value("contentExtension.mediaButton.frame") == .array([.int(100), .int(100), .int(100), .int(100)]))
            #expect(expanded.value("contentExtension.mediaButton.tint") == .string("#0000FFFF"))
            let traced = try await server.expectTraceEvent(.expanded, of: apnsID)
            #expect(traced.detailValue("contentExtension.size") == .array([.int(320), .int(160)]))
            #expect(traced.detailValue("contentExtension.defaultContent")?.arrayValue?.first == .string("I am heading"))

            let play = try #require(try await phone.playPause(in: Self.app).first(.media))
            #expect(play.detail["playing"] == .bool(true))
            #expect(play.string("callback") == AppCall.mediaPlay.rawValue)
            #expect(try await phone.app(Self.app).center.expandedContentExtension?.mediaButton?.isPlaying == true)
            let pause = try #require(try await phone.playPause(in: Self.app).first(.media))
            #expect(pause.string("callback") == AppCall.mediaPause.rawValue)
            #expect(try await phone.app(Self.app).center.expandedContentExtension?.mediaButton?.isPlaying == false)

            let trace = try await server.expectTrace(of: apnsID, within: .seconds(10), "to record play and pause") { events in
                events.filter { $0.kind == .media }.count == 2
            }
            #expect(trace.filter { $0.kind == .media }.map { $0.detail["playing"] } == [.bool(true), .bool(false)])
            #expect(trace.reportKinds == ["modified", "displayed", "expanded", "media", "media"])
            try await phone.collapse(in: Self.app)
            #expect(try await phone.app(Self.app).center.expandedContentExtension == nil)
        }
    }

    @Test("the text input action reaches the app with the typed text and opens it; without text it is refused")
    func textInput() async throws {
        try await withSeed(manifest: Self.manifest(), topic: Self.app) { server, phone, provider in
            let apnsID = try await Self.sendSeedPayload(server, phone, provider)
            await #expect(throws: SimulatorError.self) { try await phone.perform("comment", on: "xu", in: Self.app) }
            let reports = try await phone.perform("comment", on: "xu", in: Self.app, text: "好文章")
            #expect(reports.events == ["action", "removed"])
            let action = try #require(reports.first(.action))
            #expect(action.detail["deliveredToApp"] == .bool(true))
            #expect(action.string("stateAfter") == "foreground")
            #expect(try await phone.callbacks(in: Self.app).contains(.didReceiveResponse))
            try await phone.expectNotificationRemoved("xu", in: Self.app)
            #expect(try await phone.app(Self.app).state == .foreground)

            let traced = try await server.expectTraceEvent(.action, of: apnsID)
            #expect(traced.detail["action"] == .string("comment"))
            #expect(traced.detail["text"] == .string("好文章"))
            #expect(try await server.expectTraceEvent(.removed, of: apnsID).detail["reason"] == .string("opened"))
        }
    }

    @Test("dismissing clears the notification (the app is not told); a tap afterwards is refused")
    func dismiss() async throws {
        try await withSeed(manifest: Self.manifest(), topic: Self.app) { server, phone, provider in
            let apnsID = try await Self.sendSeedPayload(server, phone, provider)
            let reports = try await phone.dismiss("xu", in: Self.app)
            #expect(reports.events == ["dismissed", "removed"])
            #expect(reports.first(.dismissed)?.detail["deliveredToApp"] == .bool(false))
            await #expect(throws: SimulatorError.self) { try await phone.tap("xu", in: Self.app) }
            try await phone.expectNotificationRemoved("xu", in: Self.app)
            try await server.expectTrace(of: apnsID, contains: .dismissed)
            #expect(try await server.expectTraceEvent(.removed, of: apnsID).detail["reason"] == .string("dismissed"))
        }
    }

    @Test("an interface that answers doNotDismiss keeps the action from the app and the notification listed")
    func extensionAnswersAction() async throws {
        try await withSeed(manifest: Self.manifest(actionResponse: "doNotDismiss"), topic: Self.app) { server, phone, provider in
            let apnsID = try await Self.sendSeedPayload(server, phone, provider)
            try await phone.expand("xu", in: Self.app)
            let reports = try await phone.perform("like", on: "xu", in: Self.app)
            #expect(reports.events == ["action"])
            #expect(reports.first(.action)?.detail["deliveredToApp"] == .bool(false))
            #expect(!(try await phone.callbacks(in: Self.app)).contains(.didReceiveResponse))
            let traced = try await server.expectTraceEvent(.action, of: apnsID)
            #expect(traced.detail["contentExtensionResponse"] == .string("doNotDismiss"))
            #expect(await phone.notifications(in: Self.app).map(\.identifier) == ["xu"])
        }
    }

    @Test("a notification of another category has no content extension: plain expansion, no media button")
    func otherCategory() async throws {
        try await withSeed(manifest: Self.manifest(), topic: Self.app) { server, phone, provider in
            let apnsID = try await provider.send(#"{"aps":{"alert":"plain","category":"other"}}"#, to: phone.token(for: Self.app), collapseID: "p")
            let shown = try await phone.expectNotification(in: Self.app, within: .seconds(10), "with body plain") { $0.body == "plain" }
            #expect(shown.contentExtension == nil)
            #expect(try await server.expectTraceEvent(.displayed, of: apnsID).detail["contentExtension"] == .null)
            let expanded = try await phone.expand("p", in: Self.app)
            #expect(expanded.first(.expanded)?.detail["contentExtension"] == .null)
            #expect(try await server.expectTraceEvent(.expanded, of: apnsID).detail["contentExtension"] == .null)
            await #expect(throws: SimulatorError.self) { try await phone.playPause(in: Self.app) }
        }
    }
}
