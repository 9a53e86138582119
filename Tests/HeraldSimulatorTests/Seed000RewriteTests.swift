import Foundation
import HeraldCore
import HeraldSimulator
import HeraldTestSupport
import HeraldTestTiers
import HeraldUserNotifications
import Testing

// Seed 000 ("iOS 10: Notification Service Extensions"): a messaging app whose backend knows the
// sender only by an id; the service extension replaces it with the contact's name from the device.
@Suite("Seed 000 on a simulated device: the sender id becomes the contact name", .tier(.unit))
struct Seed000RewriteTests {
    static let manifest = Seed000.manifest()

    @Test("a mutable alert is rewritten before it is shown")
    func rewritten() async throws {
        let device = try await makeDevice(Self.manifest)
        let reports = await device.receive(push(Seed000.message, to: Seed000.bundleID, collapseID: "m1"))
        #expect(reports.events == ["modified", "displayed"])
        let modified = try #require(reports.first(.modified))
        #expect(modified.string("outcome") == "completed")
        #expect(modified.value("before.title")?.stringValue == "New message")
        #expect(modified.value("after.title")?.stringValue == "Alice")
        #expect(modified.value("after.body")?.stringValue == "Alice: Lunch at noon?")
        #expect(modified.detail["timeWillExpire"] == .bool(false))
        #expect(modified.detail["steps"]?.arrayValue?.first?.objectValue?["result"] == .string("applied"))
        let displayed = try #require(reports.first(.displayed))
        #expect(displayed.string("title") == "Alice")
        #expect(displayed.string("body") == "Alice: Lunch at noon?")
        #expect(displayed.string("sound") == "default")
        #expect(displayed.strings("presentation") == ["list", "banner", "sound"])
        #expect(displayed.notificationIdentifier == "m1")
        #expect(await shownTitles(device, Seed000.bundleID) == ["Alice"])
    }

    @Test("a sender missing from the table gets the fallback name; a number id works too")
    func fallback() async throws {
        let device = try await makeDevice(Self.manifest)
        let unknown = await device.receive(
            push(#"{"aps":{"alert":{"body":"hi"},"mutable-content":1},"sender-id":"9999"}"#, to: Seed000.bundleID)
        )
        #expect(unknown.first(.displayed)?.string("body") == "Unknown sender: hi")
        let numeric = await device.receive(push(#"{"aps":{"alert":{"body":"yo"},"mutable-content":1},"sender-id":4712}"#, to: Seed000.bundleID))
        #expect(numeric.first(.displayed)?.string("body") == "Bob: yo")
    }

    @Test("without mutable-content: 1 the extension does not run (spec §C.7)")
    func needsMutableContent() async throws {
        let device = try await makeDevice(Self.manifest)
        let reports = await device.receive(
            push(#"{"aps":{"alert":{"title":"New message","body":"x"}},"sender-id":"4711"}"#, to: Seed000.bundleID)
        )
        #expect(reports.events == ["displayed"])
        #expect(reports.first(.displayed)?.string("title") == "New message")
    }

    @Test("a payload without the key leaves the content as it is")
    func missingKey() async throws {
        let device = try await makeDevice(Self.manifest)
        let reports = await device.receive(push(#"{"aps":{"alert":"plain","mutable-content":1}}"#, to: Seed000.bundleID))
        let modified = try #require(reports.first(.modified))
        #expect(modified.detail["changed"] == .bool(false))
        #expect(modified.detail["steps"]?.arrayValue?.first?.objectValue?["result"] == .string("skipped"))
        #expect(reports.first(.displayed)?.string("body") == "plain")
    }
}
