import Foundation
import HeraldCore
import HeraldSimulator
import HeraldStore
import HeraldTestSupport
import HeraldTestTiers
import HeraldTesting
import HeraldUserNotifications
import Testing

// Seed 000 ("iOS 10: Notification Service Extensions") through a real server: a messaging backend that knows
// the sender only by an id sends a mutable alert over HTTP/2; the device's service extension replaces the id
// with the contact's name before the notification is shown — or, when it runs out of its 30 s, the system
// shows what it has (or the original) after serviceExtensionTimeWillExpire().
@Suite("Seed 000 end to end: the service extension turns the sender id into the contact name", .serialized, .tier(.inProcess))
struct Seed000ServerTests {
    static let app = Seed000.bundleID

    static func manifest(delay: Int? = nil, bestAttemptOnExpiry: Bool = true) -> String {
        Seed000.manifest(name: "Messages phone", delay: delay, bestAttemptOnExpiry: bestAttemptOnExpiry)
    }

    static let message = Seed000.message

    @Test("a mutable alert is rewritten on the device before it is shown; the trace records modified and displayed")
    func rewritten() async throws {
        try await withSeed(manifest: Self.manifest(), topic: Self.app) { server, phone, provider in
            let apnsID = try await provider.send(Self.message, to: phone.token(for: Self.app), collapseID: "m1")

            let shown = try await phone.expectNotification(titled: "Alice", in: Self.app, within: .seconds(10))
            #expect(shown.body == "Alice: Lunch at noon?")
            #expect(shown.identifier == "m1")
            #expect(shown.sound == "default")
            #expect(await phone.notifications(in: Self.app).map(\.title) == ["Alice"])

            let modified = try await phone.expectReport(.modified, for: apnsID)
            #expect(modified.string("outcome") == "completed")
            #expect(modified.detail["timeWillExpire"] == .bool(false))
            #expect(modified.value("before.title")?.stringValue == "New message")
            // A suspended app is not woken for an alert: only its extension ran.
            let calls = try await phone.callbacks(in: Self.app)
            #expect(calls.contains(.serviceExtensionDidReceive))
            #expect(!calls.contains(.serviceExtensionTimeWillExpire))
            #expect(!calls.contains(.willPresent))

            let trace = try await server.expectDelivered(apnsID, reporting: [.modified, .displayed])
            #expect(trace.reportKinds == ["modified", "displayed"])
            let displayed = try await server.expectTraceEvent(.displayed, of: apnsID)
            #expect(displayed.detail["title"] == .string("Alice"))
            #expect(displayed.detail["body"] == .string("Alice: Lunch at noon?"))
            #expect(displayed.detail["identifier"] == .string("m1"))
            #expect(displayed.detail["presentation"] == .array([.string("list"), .string("banner"), .string("sound")]))
            let traced = try await server.expectTraceEvent(.modified, of: apnsID)
            #expect(traced.detailValue("after.title") == .string("Alice"))
            #expect(traced.detailValue("outcome") == .string("completed"))
        }
    }

    @Test("a sender missing from the table gets the fallback name; a number id works too")
    func fallback() async throws {
        try await withSeed(manifest: Self.manifest(), topic: Self.app) { server, phone, provider in
            let token = try phone.token(for: Self.app)
            let unknown = try await provider.send(#"{"aps":{"alert":{"body":"hi"},"mutable-content":1},"sender-id":"9999"}"#, to: token)
            let numeric = try await provider.send(#"{"aps":{"alert":{"body":"yo"},"mutable-content":1},"sender-id":4712}"#, to: token)
            try await phone.expectNotificationCenter(in: Self.app, within: .seconds(10), "listing both messages, renamed") { shown in
                Set(shown.map(\.body)) == ["Unknown sender: hi", "Bob: yo"]
            }
            #expect(try await server.expectTraceEvent(.displayed, of: unknown).detail["body"] == .string("Unknown sender: hi"))
            #expect(try await server.expectTraceEvent(.displayed, of: numeric).detail["title"] == .string("Bob"))
        }
    }

    @Test("without mutable-content: 1 the extension does not run: no modified in the trace")
    func needsMutableContent() async throws {
        try await withSeed(manifest: Self.manifest(), topic: Self.app) { server, phone, provider in
            let apnsID = try await provider.send(
                #"{"aps":{"alert":{"title":"New message","body":"x"}},"sender-id":"4711"}"#,
                to: phone.token(for: Self.app)
            )
            try await phone.expectNotification(titled: "New message", in: Self.app, within: .seconds(10))
            let trace = try await server.expectDelivered(apnsID, reporting: [.displayed])
            #expect(trace.reportKinds == ["displayed"])
            #expect(!(try await phone.callbacks(in: Self.app)).contains(.serviceExtensionDidReceive))
        }
    }

    @Test("a payload without sender-id leaves the content as it is: the extension ran, the step was skipped")
    func missingKey() async throws {
        try await withSeed(manifest: Self.manifest(), topic: Self.app) { server, phone, provider in
            let apnsID = try await provider.send(#"{"aps":{"alert":"plain","mutable-content":1}}"#, to: phone.token(for: Self.app))
            let shown = try await phone.expectNotification(in: Self.app, within: .seconds(10), "with body plain") { $0.body == "plain" }
            #expect(shown.title == "")
            try await server.expectDelivered(apnsID, reporting: [.modified, .displayed])
            let modified = try await server.expectTraceEvent(.modified, of: apnsID)
            #expect(modified.detail["changed"] == .bool(false))
            #expect(modified.detail["steps"]?.arrayValue?.first?.objectValue?["result"] == .string("skipped"))
        }
    }

    @Test("a silent push never runs the extension, even with mutable-content")
    func silentPushSkipsExtension() async throws {
        try await withSeed(manifest: Self.manifest(), topic: Self.app) { server, phone, provider in
            let apnsID = try await provider.send(
                #"{"aps":{"content-available":1,"mutable-content":1},"sender-id":"4711"}"#,
                to: phone.token(for: Self.app),
                pushType: .background
            )
            let background = try await phone.expectReport(.background, for: apnsID, within: .seconds(10))
            #expect(background.string("stateWhileHandling") == "background")
            try await server.expectDelivered(apnsID, reporting: [.background])
            #expect(!(try await phone.callbacks(in: Self.app)).contains(.serviceExtensionDidReceive))
            #expect(await phone.notifications(in: Self.app).isEmpty)
        }
    }

    @Test(
        "over the 30 s budget serviceExtensionTimeWillExpire() runs: the best attempt is shown, or the original",
        arguments: [true, false]
    )
    func budget(bestAttempt: Bool) async throws {
        // The device runs on a manual clock: the 30 s pass in an instant, no sleeping.
        let clock = ManualNotificationClock()
        try await withSeed(manifest: Self.manifest(delay: 60, bestAttemptOnExpiry: bestAttempt), topic: Self.app, clock: clock) {
            server,
            phone,
            provider in
            let apnsID = try await provider.send(Self.message, to: phone.token(for: Self.app))
            // The budget's timer and the 60 s step both wait on the device's clock.
            try await eventually("the extension waiting on the device's clock") { clock.sleeperCount >= 2 }
            try await phone.expectNoNotification(titled: "Alice", in: Self.app, during: .milliseconds(100))
            clock.advance(by: 29)
            #expect(clock.sleeperCount >= 2)
            clock.advance(by: 1)

            let title = bestAttempt ? "Alice" : "New message"
            let shown = try await phone.expectNotification(titled: title, in: Self.app, within: .seconds(10))
            #expect(shown.body == (bestAttempt ? "Alice: Lunch at noon?" : "Lunch at noon?"))
            let modified = try await phone.expectReport(.modified, for: apnsID)
            #expect(modified.string("outcome") == (bestAttempt ? "expiredWithBestAttempt" : "expiredShowingOriginal"))
            #expect(modified.detail["timeWillExpire"] == .bool(true))
            #expect(try await phone.callbacks(in: Self.app).suffix(2) == [.serviceExtensionDidReceive, .serviceExtensionTimeWillExpire])

            try await server.expectDelivered(apnsID, reporting: [.modified, .displayed])
            let traced = try await server.expectTraceEvent(.modified, of: apnsID)
            #expect(traced.detail["timeWillExpire"] == .bool(true))
            #expect(try await server.expectTraceEvent(.displayed, of: apnsID).detail["title"] == .string(title))
        }
    }
}
