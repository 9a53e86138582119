import Foundation
import HeraldCore
import HeraldSimulator
import HeraldTestSupport
import HeraldTestTiers
import HeraldUserNotifications
import Testing

// Seed 002 ("IOS10 push must see UNNotificationContentExtension"): the service extension rewrites
// the text and sets category1; the content extension registered for category1 (ratio 0.5, a
// default media button at (100, 100, 100, 100) in blue) draws the expanded notification.
@Suite("Seed 002 on a simulated device: category, actions and the content extension", .tier(.unit))
struct Seed002ContentExtensionTests {
    static let bundleID = Seed002.bundleID

    static func manifest(actionResponse: String? = nil) -> String { Seed002.manifest(actionResponse: actionResponse) }

    /// The payload the seed prints in didReceiveNotification:.
    static let payload = Seed002.payload

    @Test("the service extension sets category1; the notification shows its actions and names the content extension")
    func categoryAndActions() async throws {
        let device = try await makeDevice(Self.manifest())
        let reports = await device.receive(push(Self.payload, to: Self.bundleID, collapseID: "xu"))
        #expect(reports.events == ["modified", "displayed"])
        let modified = try #require(reports.first(.modified))
        #expect(modified.value("before.categoryIdentifier")?.stringValue == "")
        #expect(modified.value("after.categoryIdentifier")?.stringValue == "category1")
        #expect(modified.value("after.subtitle")?.stringValue == "I am sub title")
        let displayed = try #require(reports.first(.displayed))
        #expect(displayed.string("title") == "I am heading")
        #expect(displayed.string("categoryIdentifier") == "category1")
        #expect(displayed.string("contentExtension") == "NotificationContent")
        #expect(displayed.detail["badge"] == .int(1))
        let actions = try #require(displayed.detail["actions"]?.arrayValue)
        #expect(actions.compactMap { $0.objectValue?["identifier"]?.stringValue } == ["comment", "like", "cancel"])
        #expect(actions.first?.objectValue?["textInputPlaceholder"] == .string("Say something"))
        #expect(actions.first?.objectValue?["textInputButtonTitle"] == .string("Send"))

        let app = try #require(await device.snapshot().apps.first)
        #expect(app.center.badge == 1)
        #expect(app.categories.first?.actions.map(\.title) == ["Comment", "Like", "Cancel"])
        #expect(app.center.threads.first?.notifications.first?.contentExtension == "NotificationContent")
    }

    @Test("expanding draws the content extension; the media button toggles play and pause")
    func expandAndPlay() async throws {
        let device = try await makeDevice(Self.manifest())
        _ = await device.receive(push(Self.payload, to: Self.bundleID, collapseID: "xu"))
        let expanded = try #require(try await device.expand("xu", in: Self.bundleID).first(.expanded))
        #expect(expanded.value("contentExtension.size") == .array([.int(320), .int(160)]))
        #expect(
            expanded.value("contentExtension.lines")
                == .array([.string("Hello, I'm Xu"), .string("http://upload.univs.cn/2012/0104/1325645511371.jpg")])
        )
        #expect(expanded.value("contentExtension.defaultContent")?.arrayValue?.first == .string("I am heading"))
        #expect(expanded.value("contentExtension.mediaButton.frame") == .array([.int(100), .int(100), .int(100), .int(100)]))
        #expect(expanded.value("contentExtension.mediaButton.tint") == .string("#0000FFFF"))
        #expect(expanded.value("contentExtension.actions") == .array([.string("Comment"), .string("Like"), .string("Cancel")]))

        let play = try #require(try await device.playPause(in: Self.bundleID).first(.media))
        #expect(play.detail["playing"] == .bool(true))
        #expect(play.string("callback") == AppCall.mediaPlay.rawValue)
        #expect(play.notificationIdentifier == "xu")
        let pause = try #require(try await device.playPause(in: Self.bundleID).first(.media))
        #expect(pause.detail["playing"] == .bool(false))
        #expect(pause.string("callback") == AppCall.mediaPause.rawValue)
        #expect(await device.snapshot().apps.first?.center.expandedContentExtension?.mediaButton?.isPlaying == false)
    }

    @Test("the text input action reaches the app with the typed text and opens it; without text it is refused")
    func textInput() async throws {
        let device = try await makeDevice(Self.manifest())
        _ = await device.receive(push(Self.payload, to: Self.bundleID, collapseID: "xu"))
        await #expect(throws: SimulatorError.self) { try await device.perform("comment", on: "xu", in: Self.bundleID) }
        let reports = try await device.perform("comment", on: "xu", in: Self.bundleID, text: "好文章")
        #expect(reports.events == ["action", "removed"])
        let action = try #require(reports.first(.action))
        #expect(action.string("action") == "comment")
        #expect(action.string("text") == "好文章")
        #expect(action.detail["deliveredToApp"] == .bool(true))
        #expect(action.string("stateAfter") == "foreground")
        #expect(action.strings("callbacks").contains(AppCall.didReceiveResponse.rawValue))
        #expect(reports.first(.removed)?.string("reason") == "opened")
        #expect(await shownTitles(device, Self.bundleID).isEmpty)
    }

    @Test("dismissing clears the notification; the app is not told without customDismissAction")
    func dismiss() async throws {
        let device = try await makeDevice(Self.manifest())
        _ = await device.receive(push(Self.payload, to: Self.bundleID, collapseID: "xu"))
        let reports = try await device.dismiss("xu", in: Self.bundleID)
        #expect(reports.events == ["dismissed", "removed"])
        #expect(reports.first(.dismissed)?.detail["deliveredToApp"] == .bool(false))
        await #expect(throws: SimulatorError.self) { try await device.tap("xu", in: Self.bundleID) }
    }

    @Test("an interface that answers doNotDismiss keeps the action from the app and the notification listed")
    func extensionAnswersAction() async throws {
        let device = try await makeDevice(Self.manifest(actionResponse: "doNotDismiss"))
        _ = await device.receive(push(Self.payload, to: Self.bundleID, collapseID: "xu"))
        _ = try await device.expand("xu", in: Self.bundleID)
        let reports = try await device.perform("like", on: "xu", in: Self.bundleID)
        #expect(reports.events == ["action"])
        #expect(reports.first(.action)?.string("contentExtensionResponse") == "doNotDismiss")
        #expect(reports.first(.action)?.detail["deliveredToApp"] == .bool(false))
    }

    @Test("a notification of another category has no content extension")
    func otherCategory() async throws {
        let device = try await makeDevice(Self.manifest())
        let reports = await device.receive(push(#"{"aps":{"alert":"plain","category":"other"}}"#, to: Self.bundleID, collapseID: "p"))
        #expect(reports.first(.displayed)?.detail["contentExtension"] == .null)
        let expanded = try await device.expand("p", in: Self.bundleID)
        #expect(expanded.first(.expanded)?.detail["contentExtension"] == .null)
        await #expect(throws: SimulatorError.self) { try await device.playPause(in: Self.bundleID) }
    }
}
