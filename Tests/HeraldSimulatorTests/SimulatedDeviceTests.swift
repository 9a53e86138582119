import Foundation
import HeraldCore
import HeraldSimulator
import HeraldTestTiers
import HeraldUserNotifications
import Testing

/// A Swift service extension, as an app team would write it (the Xcode template).
final class TemplateService: UNNotificationServiceExtension {
    var contentHandler: ((UNNotificationContent) -> Void)?
    var bestAttemptContent: UNMutableNotificationContent?

    override func didReceive(_ request: UNNotificationRequest, withContentHandler contentHandler: @escaping (UNNotificationContent) -> Void) {
        self.contentHandler = contentHandler
        bestAttemptContent = request.content.mutableCopy() as? UNMutableNotificationContent
        if let bestAttemptContent {
            bestAttemptContent.title = "\(bestAttemptContent.title) [modified]"
            contentHandler(bestAttemptContent)
        }
    }
}

@Suite("Simulated device", .tier(.unit))
struct SimulatedDeviceTests {
    static let bundleID = "com.example.app"
    static let plain = #"{"apps": [{"bundleID": "com.example.app", "state": "suspended"}]}"#

    static func slow(seconds: Double, bestAttempt: Bool = true) -> String {
        """
        {"apps": [{"bundleID": "com.example.app", "state": "suspended",
          "serviceExtension": {"bestAttemptOnExpiry": \(bestAttempt), "steps": [
            {"kind": "rewrite", "title": "Rewritten"},
            {"kind": "delay", "seconds": \(seconds)},
            {"kind": "rewrite", "body": "never reached in time"}
          ]}}]}
        """
    }

    static let mutable = #"{"aps":{"alert":{"title":"Original","body":"original body"},"mutable-content":1}}"#

    @Test("a duplicate apns-id is dropped: the link is at-least-once, the device shows once")
    func duplicates() async throws {
        let device = try await makeDevice(Self.plain)
        let id = NotificationID.random()
        #expect(await device.receive(push(#"{"aps":{"alert":"once"}}"#, to: Self.bundleID, apnsID: id)).events == ["displayed"])
        let again = await device.receive(push(#"{"aps":{"alert":"once"}}"#, to: Self.bundleID, apnsID: id))
        #expect(again.events == ["dropped"])
        #expect(again.first(.dropped)?.string("reason") == DropReason.duplicate.rawValue)
        #expect(again.first(.dropped)?.apnsID == id)
        let upper = try #require(NotificationID(id.text.uppercased()))
        #expect(await device.receive(push(#"{"aps":{"alert":"once"}}"#, to: Self.bundleID, apnsID: upper)).events == ["dropped"])
        #expect(await shownTitles(device, Self.bundleID).count == 1)
    }

    @Test("a resend (same apns-id, same acceptance time) is dropped; a reused apns-id accepted later is a new notification")
    func reusedAPNSID() async throws {
        let device = try await makeDevice(Self.plain)
        let id = NotificationID.random()
        func accepted(_ title: String, at milliseconds: Int64) -> IncomingNotification {
            var notification = push(#"{"aps":{"alert":{"title":"\#(title)"}}}"#, to: Self.bundleID, apnsID: id)
            notification.acceptedAtMilliseconds = milliseconds
            return notification
        }
        #expect(await device.receive(accepted("First", at: 1_000)).events == ["displayed"])
        #expect(await device.receive(accepted("First", at: 1_000)).events == ["dropped"])
        #expect(await device.receive(accepted("Second", at: 2_000)).events.contains("displayed"))
        // The identifier is the apns-id (no collapse id): the second replaced the first in Notification Center.
        #expect(await shownTitles(device, Self.bundleID) == ["Second"])
    }

    @Test("notifications the device cannot take are dropped with the reason")
    func unusable() async throws {
        let device = try await makeDevice(Self.plain)
        let cases: [(IncomingNotification, DropReason)] = [
            (push(#"{"aps":{"alert":"x"}}"#, to: "com.example.other"), .unknownApp),
            (push(#"{"aps":{"alert":"x"}}"#, to: Self.bundleID, pushType: .voip), .unsupportedPushType),
            (push(#"{"aps":"not a dictionary"}"#, to: Self.bundleID), .invalidPayload),
            (push("[1, 2]", to: Self.bundleID), .invalidPayload),
            (push(#"{"aps":{"alert":"\#(String(repeating: "x", count: 6000))"}}"#, to: Self.bundleID), .invalidPayload),
        ]
        for (notification, reason) in cases {
            let reports = await device.receive(notification)
            #expect(reports.events == ["dropped"])
            #expect(reports.first(.dropped)?.string("reason") == reason.rawValue)
        }
    }

    @Test("an app the user did not allow shows nothing")
    func notAuthorized() async throws {
        let device = try await makeDevice(#"{"apps": [{"bundleID": "com.example.app", "authorization": {"granted": false}}]}"#)
        let reports = await device.receive(push(#"{"aps":{"alert":"x"}}"#, to: Self.bundleID))
        #expect(reports.events == ["dropped"])
        #expect(reports.first(.dropped)?.string("reason") == DropReason.notAuthorized.rawValue)
        #expect(await device.snapshot().apps.first?.authorization == "denied")
    }

    @Test("in the foreground the delegate's willPresent decides")
    func foreground() async throws {
        let shows = try await makeDevice(#"{"apps": [{"bundleID": "com.example.app", "state": "foreground"}]}"#)
        let shown = await shows.receive(push(#"{"aps":{"alert":"x","badge":3}}"#, to: Self.bundleID))
        #expect(shown.events == ["displayed", "background"])
        #expect(shown.first(.displayed)?.strings("presentation") == ["list", "banner", "badge"])
        let hides = try await makeDevice(#"{"apps": [{"bundleID": "com.example.app", "state": "foreground", "delegate": {"willPresent": []}}]}"#)
        let hidden = await hides.receive(push(#"{"aps":{"alert":"x"}}"#, to: Self.bundleID))
        #expect(hidden.first(.dropped)?.string("reason") == DropReason.notPresented.rawValue)
    }

    @Test("a badge-only push is shown on the icon, not listed")
    func badgeOnly() async throws {
        let device = try await makeDevice(Self.plain)
        let reports = await device.receive(push(#"{"aps":{"badge":7}}"#, to: Self.bundleID))
        #expect(reports.events == ["displayed"])
        #expect(reports.first(.displayed)?.strings("presentation") == ["badge"])
        #expect(reports.first(.displayed)?.detail["inNotificationCenter"] == .bool(false))
        #expect(await device.snapshot().apps.first?.center.badge == 7)
    }

    @Test("an extension slower than the 30 s budget: serviceExtensionTimeWillExpire hands over the best attempt (no sleeping)")
    func budgetBestAttempt() async throws {
        let clock = ManualNotificationClock()
        let device = try await makeDevice(Self.slow(seconds: 45), clock: clock)
        async let reports = device.receive(push(Self.mutable, to: Self.bundleID))
        await clock.waitForSleepers(count: 2)  // the runtime's budget and the delay step
        clock.advance(by: 29)
        #expect(clock.sleeperCount == 2)
        clock.advance(by: 1)
        let result = await reports
        #expect(result.events == ["modified", "displayed"])
        let modified = try #require(result.first(.modified))
        #expect(modified.string("outcome") == "expiredWithBestAttempt")
        #expect(modified.detail["timeWillExpire"] == .bool(true))
        #expect(modified.value("after.title")?.stringValue == "Rewritten")
        #expect(modified.value("after.body")?.stringValue == "original body")
        let steps = modified.detail["steps"]?.arrayValue?.compactMap { $0.objectValue?["result"]?.stringValue }
        #expect(steps == ["applied", "interrupted", "notReached"])
        #expect(result.first(.displayed)?.string("title") == "Rewritten")
        #expect(clock.sleeperCount == 0)
    }

    @Test("without a best attempt the original content is shown after the budget")
    func budgetOriginal() async throws {
        let clock = ManualNotificationClock()
        let device = try await makeDevice(Self.slow(seconds: 45, bestAttempt: false), clock: clock)
        async let reports = device.receive(push(Self.mutable, to: Self.bundleID))
        await clock.waitForSleepers(count: 2)
        clock.advance(by: 30)
        let result = await reports
        #expect(result.first(.modified)?.string("outcome") == "expiredShowingOriginal")
        #expect(result.first(.displayed)?.string("title") == "Original")
    }

    @Test("a delay within the budget completes when the clock reaches it")
    func delayWithinBudget() async throws {
        let clock = ManualNotificationClock()
        let device = try await makeDevice(Self.slow(seconds: 10), clock: clock)
        async let reports = device.receive(push(Self.mutable, to: Self.bundleID))
        await clock.waitForSleepers(count: 2)
        clock.advance(by: 10)
        let result = await reports
        #expect(result.first(.modified)?.string("outcome") == "completed")
        #expect(result.first(.displayed)?.string("body") == "never reached in time")
    }

    @Test("notifications of one app are handled one at a time, in arrival order")
    func serialised() async throws {
        let clock = ManualNotificationClock()
        let device = try await makeDevice(Self.slow(seconds: 10), clock: clock)
        async let first = device.receive(push(Self.mutable, to: Self.bundleID, collapseID: "first"))
        await clock.waitForSleepers(count: 2)
        async let second = device.receive(push(#"{"aps":{"alert":"second"}}"#, to: Self.bundleID, collapseID: "second"))
        // The second waits for the first: nothing is shown until the first's delay ends (had it not
        // waited, it would be shown now, and listed under the first at the end).
        for _ in 0..<100 { await Task.yield() }
        #expect(await shownTitles(device, Self.bundleID).isEmpty)
        clock.advance(by: 10)
        #expect(await first.events == ["modified", "displayed"])
        #expect(await second.events == ["displayed"])
        let identifiers = await device.snapshot().apps.first?.center.threads.first?.notifications.map(\.identifier)
        #expect(identifiers == ["second", "first"])
    }

    @Test("a Swift service extension supplied by the host runs as the manifest names it")
    func swiftExtension() async throws {
        let manifest = #"{"apps": [{"bundleID": "com.example.app", "serviceExtension": {"code": "TemplateService"}}]}"#
        let device = try await makeDevice(manifest, code: InProcessCode(serviceExtensions: ["TemplateService": { TemplateService() }]))
        let reports = await device.receive(push(Self.mutable, to: Self.bundleID))
        #expect(reports.first(.modified)?.value("after.title")?.stringValue == "Original [modified]")
        #expect(reports.first(.displayed)?.string("title") == "Original [modified]")
    }

    @Test("the snapshot encodes to JSON and reads back")
    func snapshot() async throws {
        let device = try await makeDevice(Seed002ContentExtensionTests.manifest())
        _ = await device.receive(push(Seed002ContentExtensionTests.payload, to: Seed002ContentExtensionTests.bundleID, collapseID: "xu"))
        _ = try await device.expand("xu", in: Seed002ContentExtensionTests.bundleID)
        let snapshot = await device.snapshot()
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys]
        encoder.dateEncodingStrategy = .iso8601
        let data = try encoder.encode(snapshot)
        let decoder = JSONDecoder()
        decoder.dateDecodingStrategy = .iso8601
        #expect(try decoder.decode(DeviceSnapshot.self, from: data) == snapshot)
        let object = try #require(try JSONSerialization.jsonObject(with: data) as? [String: Any])
        #expect(object["name"] as? String == "Simulated iPhone")
        let app = try #require(snapshot.apps.first)
        #expect(app.state == .background)
        #expect(app.deviceToken.count == 64)
        #expect(app.center.threads.first?.notifications.first?.title == "I am heading")
        #expect(app.center.expandedContentExtension?.lines == ["Hello, I'm Xu", "http://upload.univs.cn/2012/0104/1325645511371.jpg"])
        #expect(app.categories.first?.actions.first?.textInputButtonTitle == "Send")
        #expect(app.apnsIDs["xu"] != nil)
    }

    @Test("a report is one JSON object")
    func reportJSON() async throws {
        let device = try await makeDevice(Self.plain)
        let report = try #require(await device.receive(push(#"{"aps":{"alert":"x"}}"#, to: Self.bundleID)).first)
        let text = try report.jsonText()
        let object = try #require(try JSONSerialization.jsonObject(with: Data(text.utf8)) as? [String: Any])
        #expect(object["event"] as? String == "displayed")
        #expect((object["detail"] as? [String: Any])?["body"] as? String == "x")
        #expect(object["apnsID"] as? String == report.apnsID?.text)
    }

    @Test("the installed apps carry their manifest tokens, or random ones")
    func tokens() async throws {
        let token = String(repeating: "ab", count: 32)
        let device = try await makeDevice(
            #"{"apps": [{"bundleID": "a.b", "deviceToken": "\#(token.uppercased())"}, {"bundleID": "c.d", "environment": "production"}]}"#
        )
        #expect(device.installedApps.map(\.bundleID) == ["a.b", "c.d"])
        #expect(device.installedApps.first?.deviceToken.hex == token)
        #expect(device.installedApps.last?.environment == .production)
        #expect(device.installedApps.last?.deviceToken.hex.count == 64)
    }
}
