import Foundation
import HeraldCore
import HeraldSimulator
import HeraldTestSupport
import HeraldTestTiers
import HeraldUserNotifications
import Testing

// Seed 001 ("How to replace the content of an iOS notification"): the easy way is
// apns-collapse-id; the hard way is a service extension that removes the delivered notification
// carrying the same custom id before the new one is shown.
@Suite("Seed 001 on a simulated device: replacing a notification", .tier(.unit))
struct Seed001ReplaceTests {
    static let manifest = Seed001.manifest()

    @Test("the easy way: the same apns-collapse-id replaces the shown notification")
    func collapseID() async throws {
        let clock = ManualNotificationClock()
        let device = try await makeDevice(Self.manifest, clock: clock)
        let first = NotificationID.random()
        _ = await device.receive(push(#"{"aps":{"alert":"Live: 1-0"}}"#, to: Seed001.bundleID, collapseID: "match-42", apnsID: first))
        _ = await device.receive(push(#"{"aps":{"alert":"Other"}}"#, to: Seed001.bundleID, collapseID: "other"))
        clock.advance(by: 60)
        let second = NotificationID.random()
        let reports = await device.receive(push(#"{"aps":{"alert":"Live: 2-0"}}"#, to: Seed001.bundleID, collapseID: "match-42", apnsID: second))
        #expect(reports.events == ["removed", "displayed"])
        let removed = try #require(reports.first(.removed))
        #expect(removed.notificationIdentifier == "match-42")
        #expect(removed.apnsID == first)
        #expect(removed.string("reason") == "replaced")
        #expect(reports.first(.displayed)?.apnsID == second)
        let snapshot = await device.snapshot()
        let notes = try #require(snapshot.apps.first?.center.threads.first?.notifications)
        #expect(notes.map(\.identifier) == ["match-42", "other"])
        #expect(notes.map(\.body) == ["Live: 2-0", "Other"])
        #expect(snapshot.apps.first?.apnsIDs["match-42"] == second)
    }

    @Test("the hard way: the extension removes the notification with the same custom-payload-id")
    func sameKey() async throws {
        let device = try await makeDevice(Self.manifest)
        let first = await device.receive(push(#"{"aps":{"alert":"Score 1-0"},"custom-payload-id":"live-7"}"#, to: Seed001.bundleID))
        let firstID = try #require(first.first(.displayed)?.notificationIdentifier)
        _ = await device.receive(push(#"{"aps":{"alert":"Unrelated"},"custom-payload-id":"live-8"}"#, to: Seed001.bundleID))

        let update = NotificationID.random()
        let reports = await device.receive(
            push(#"{"aps":{"alert":"Score 2-0","mutable-content":1},"custom-payload-id":"live-7"}"#, to: Seed001.bundleID, apnsID: update)
        )
        #expect(reports.events == ["modified", "removed", "displayed"])
        let removed = try #require(reports.first(.removed))
        #expect(removed.notificationIdentifier == firstID)
        #expect(removed.string("reason") == "removedByServiceExtension")
        #expect(reports.first(.modified)?.detail["steps"]?.arrayValue?.first?.objectValue?["removed"] == .array([.string(firstID)]))
        #expect(reports.first(.displayed)?.notificationIdentifier == update.text)
        #expect(await shownTitles(device, Seed001.bundleID).count == 2)
        let bodies = await device.snapshot().apps.first?.center.threads.flatMap(\.notifications).map(\.body)
        #expect(bodies == ["Score 2-0", "Unrelated"])
    }

    @Test("without the key the extension removes nothing")
    func noKey() async throws {
        let device = try await makeDevice(Self.manifest)
        _ = await device.receive(push(#"{"aps":{"alert":"A"}}"#, to: Seed001.bundleID))
        let reports = await device.receive(push(#"{"aps":{"alert":"B","mutable-content":1}}"#, to: Seed001.bundleID))
        #expect(reports.events == ["modified", "displayed"])
        #expect(await shownTitles(device, Seed001.bundleID).count == 2)
    }
}
