import Foundation
import HeraldCore
import HeraldSimulator
import HeraldStore
import HeraldTestSupport
import HeraldTestTiers
import HeraldTesting
import HeraldUserNotifications
import Testing

// Seed 001 ("How to replace the content of an iOS notification") through a real server. The easy way: the
// provider sends apns-collapse-id over the HTTP/2 API and the device replaces the shown notification at once.
// The hard way: the payload carries a custom id and the service extension removes the delivered notification
// with the same id before the new one is shown (the old one disappears, then the new one appears).
@Suite("Seed 001 end to end: replacing a delivered notification", .serialized, .tier(.inProcess))
struct Seed001ServerTests {
    static let app = Seed001.bundleID

    static let manifest = Seed001.manifest(name: "Live phone")

    /// Sends `count` live updates ("Live: 1-0", "Live: 2-0", …) back to back with collapse id match-42; returns
    /// their apns-ids in the order sent.
    static func sendLiveUpdates(_ count: Int, _ phone: TestDevice, _ provider: SeedProvider) async throws -> [String] {
        let token = try phone.token(for: app)
        var sent: [String] = []
        for goal in 1...count {
            sent.append(try await provider.send(#"{"aps":{"alert":"Live: \#(goal)-0"}}"#, to: token, collapseID: "match-42"))
        }
        return sent
    }

    @Test("the easy way: a push with the same apns-collapse-id replaces the shown one; the old one's trace says removed")
    func collapseID() async throws {
        try await withSeed(manifest: Self.manifest, topic: Self.app) { server, phone, provider in
            let token = try phone.token(for: Self.app)
            let first = try await provider.send(#"{"aps":{"alert":"Live: 1-0"}}"#, to: token, collapseID: "match-42")
            try await phone.expectReport(.displayed, for: first, within: .seconds(10))
            let other = try await provider.send(#"{"aps":{"alert":"Other"}}"#, to: token, collapseID: "other")
            try await phone.expectReport(.displayed, for: other, within: .seconds(10))
            let second = try await provider.send(#"{"aps":{"alert":"Live: 2-0"}}"#, to: token, collapseID: "match-42")

            let shown = try await phone.expectNotificationCenter(in: Self.app, within: .seconds(10), "replaced in place") { shown in
                shown.map(\.body) == ["Live: 2-0", "Other"]
            }
            #expect(shown.map(\.identifier) == ["match-42", "other"])
            // The device records which apns-id a shown notification came from after its center shows it: a snapshot
            // taken in between (a loaded machine) sees the center replaced and the older apns-id still.
            try await eventually("match-42 names the second push", within: .seconds(30)) {
                (try? await phone.app(Self.app).apnsIDs["match-42"]) == NotificationID(second)
            }

            // The first notification's trace ends with the device removing it (replaced); the second is displayed.
            let removed = try await server.expectTraceEvent(.removed, of: first, within: .seconds(10))
            #expect(removed.detail["reason"] == .string("replaced"))
            #expect(removed.detail["identifier"] == .string("match-42"))
            let firstTrace = try await server.trace(of: first)
            #expect(firstTrace.reportKinds == ["displayed", "removed"])
            let secondTrace = try await server.expectDelivered(second, reporting: [.displayed])
            #expect(secondTrace.reportKinds == ["displayed"])
            #expect(try await server.state(of: first) == .delivered)
            #expect(try await server.trace(of: other).reportKinds == ["displayed"])
        }
    }

    @Test("live updates sent back to back with the same collapse id: the device shows the last one sent")
    func rapidUpdates() async throws {
        try await withSeed(manifest: Self.manifest, topic: Self.app) { server, phone, provider in
            let sent = try await Self.sendLiveUpdates(12, phone, provider)
            // The server may replace an update still waiting behind another (same collapse id), or mark one it
            // already sent replaced before the device acknowledged it; every update it sent reaches the device.
            var reached: [NotificationID] = []
            for apnsID in sent {
                try await eventually("\(apnsID) delivered or replaced") {
                    let state = try? await server.state(of: apnsID)
                    return state == .delivered || state == .replaced
                }
                if try await server.trace(of: apnsID).contains(where: { $0.kind == .sent }) {
                    try await phone.expectReport(.displayed, for: apnsID, within: .seconds(10))
                    reached.append(try #require(NotificationID(apnsID)))
                }
            }
            #expect(try await server.state(of: sent[sent.count - 1]) == .delivered)
            #expect(reached.last == NotificationID(sent[sent.count - 1]))
            // The device handled them in the order they were sent, so the last one sent is the one shown.
            let displayed = phone.reports.filter { $0.event == .displayed }.compactMap(\.apnsID)
            #expect(displayed == reached)
            #expect(await phone.notifications(in: Self.app).map(\.body) == ["Live: 12-0"])
        }
    }

    @Test("each replaced update's trace reads displayed, then removed — never the other way round")
    func replacedTraceOrder() async throws {
        try await withSeed(manifest: Self.manifest, topic: Self.app) { server, phone, provider in
            let sent = try await Self.sendLiveUpdates(60, phone, provider)
            try await phone.expectNotificationCenter(in: Self.app, within: .seconds(20), "showing the last update") { shown in
                shown.map(\.body) == ["Live: 60-0"]
            }
            try await server.expectTrace(of: sent[59], contains: .displayed, within: .seconds(10))
            for apnsID in sent.dropLast() where phone.reports(for: apnsID).contains(where: { $0.event == .displayed }) {
                // Its replacement's report says it was removed; the link carried it after its own displayed.
                let trace = try await server.expectTrace(of: apnsID, contains: .removed, within: .seconds(10))
                #expect(trace.reportKinds == ["displayed", "removed"], "\(apnsID)")
            }
        }
    }

    @Test("without a collapse id each push is a new notification")
    func noCollapseID() async throws {
        try await withSeed(manifest: Self.manifest, topic: Self.app) { server, phone, provider in
            let token = try phone.token(for: Self.app)
            let first = try await provider.send(#"{"aps":{"alert":"Live: 1-0"}}"#, to: token)
            try await phone.expectReport(.displayed, for: first, within: .seconds(10))
            let second = try await provider.send(#"{"aps":{"alert":"Live: 2-0"}}"#, to: token)
            try await phone.expectNotificationCenter(in: Self.app, within: .seconds(10), "listing both") { $0.count == 2 }
            try await server.expectDelivered(second, reporting: [.displayed])
            #expect(try await server.trace(of: first).reportKinds == ["displayed"])
        }
    }

    @Test("the hard way: the extension removes the notification with the same custom-payload-id, then shows the new one")
    func sameCustomID() async throws {
        try await withSeed(manifest: Self.manifest, topic: Self.app) { server, phone, provider in
            let token = try phone.token(for: Self.app)
            let first = try await provider.send(#"{"aps":{"alert":"Score 1-0"},"custom-payload-id":"live-7"}"#, to: token)
            try await phone.expectReport(.displayed, for: first, within: .seconds(10))
            let unrelated = try await provider.send(#"{"aps":{"alert":"Unrelated"},"custom-payload-id":"live-8"}"#, to: token)
            try await phone.expectReport(.displayed, for: unrelated, within: .seconds(10))
            let update = try await provider.send(#"{"aps":{"alert":"Score 2-0","mutable-content":1},"custom-payload-id":"live-7"}"#, to: token)

            try await phone.expectNotificationRemoved(requestIdentifier(first), in: Self.app, within: .seconds(10))
            try await phone.expectNotificationCenter(in: Self.app, "listing the update and the unrelated one") { shown in
                shown.map(\.body) == ["Score 2-0", "Unrelated"]
            }
            #expect(try await phone.expectReport(.displayed, for: update).notificationIdentifier == requestIdentifier(update))
            let modified = try await phone.expectReport(.modified, for: update)
            #expect(modified.detail["steps"]?.arrayValue?.first?.objectValue?["removed"] == .array([.string(requestIdentifier(first))]))

            let removed = try await server.expectTraceEvent(.removed, of: first, within: .seconds(10))
            #expect(removed.detail["reason"] == .string("removedByServiceExtension"))
            let trace = try await server.expectDelivered(update, reporting: [.modified, .displayed])
            #expect(trace.reportKinds == ["modified", "displayed"])
            #expect(try await server.trace(of: unrelated).reportKinds == ["displayed"])
        }
    }

    @Test("without the custom id the extension removes nothing")
    func noCustomID() async throws {
        try await withSeed(manifest: Self.manifest, topic: Self.app) { server, phone, provider in
            let token = try phone.token(for: Self.app)
            let first = try await provider.send(#"{"aps":{"alert":"A"}}"#, to: token)
            try await phone.expectReport(.displayed, for: first, within: .seconds(10))
            let second = try await provider.send(#"{"aps":{"alert":"B","mutable-content":1}}"#, to: token)
            try await server.expectDelivered(second, reporting: [.modified, .displayed])
            #expect(await phone.notifications(in: Self.app).count == 2)
            #expect(try await server.trace(of: first).reportKinds == ["displayed"])
        }
    }

    @Test("while the phone is off, a push with the same collapse id replaces the stored one on the server")
    func collapseWhileOffline() async throws {
        try await withHeraldServer { server in
            let token = try await server.offlineToken(for: Self.app)
            try await server.withProviderClient { client in
                let provider = SeedProvider(client: client, topic: Self.app)
                let first = try await provider.send(#"{"aps":{"alert":"Live: 1-0"}}"#, to: token, collapseID: "match-42")
                try await server.expectTrace(of: first, endsIn: .stored)
                let second = try await provider.send(#"{"aps":{"alert":"Live: 2-0"}}"#, to: token, collapseID: "match-42")
                try await server.expectTrace(of: second, endsIn: .stored)
                try await server.expectState(of: first, is: .replaced)
            }
        }
    }
}
