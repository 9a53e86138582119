import Foundation
import HeraldCore
import HeraldProviderClient
import HeraldSimulator
import HeraldStore
import HeraldTestTiers
import HeraldTesting
import HeraldUserNotifications
import Testing

/// The kit's assertions about what a device shows and reports, and about a notification's state and trace.
@Suite("Testing kit: device reports, notification center, state and trace events", .tier(.inProcess))
struct TestDeviceExpectationTests {
    static let app = "com.example.kit"

    static func send(_ title: String, to token: String, with client: APNSProviderClient, collapseID: String? = nil) async throws -> String {
        let payload = Array(#"{"aps":{"alert":{"title":"\#(title)","body":"Hi"}}}"#.utf8)
        let response = try await client.send(APNSRequest(deviceToken: token, payload: payload, topic: app, pushType: .alert, collapseID: collapseID))
        try #require(response.status == 200)
        return try #require(response.apnsID)
    }

    @Test("expectReport returns the device's report; reports(for:) lists them; the failure names what was reported")
    func reports() async throws {
        try await withHeraldServer(HeraldTestServer.Options.cleartextOnly) { server in
            let device = try await server.addDevice(named: "Kit phone", apps: [Self.app])
            try await server.withProviderClient(tls: false) { client in
                let apnsID = try await Self.send("Hello", to: device.token(for: Self.app), with: client)
                let displayed = try await device.expectReport(.displayed, for: apnsID)
                #expect(displayed.detail["title"] == .string("Hello"))
                #expect(device.reports(for: apnsID).map(\.event) == [.displayed])
                #expect(device.reports.contains { $0.apnsID == NotificationID(apnsID) })
                let failure = await #expect(throws: HeraldExpectationFailure.self) {
                    try await device.expectReport(.background, for: apnsID, within: .milliseconds(100))
                }
                #expect(failure?.description.contains("made no background report about \(apnsID)") == true)
                #expect(failure?.description.contains("(it reported displayed)") == true)
            }
        }
    }

    @Test("state(of:) and expectState follow the store; expectTraceEvent returns the event with its detail")
    func stateAndTraceEvent() async throws {
        try await withHeraldServer(HeraldTestServer.Options.cleartextOnly) { server in
            let device = try await server.addDevice(apps: [Self.app])
            try await server.withProviderClient(tls: false) { client in
                let apnsID = try await Self.send("State", to: device.token(for: Self.app), with: client, collapseID: "s")
                try await server.expectState(of: apnsID, is: .delivered)
                #expect(try await server.state(of: apnsID) == .delivered)
                #expect(try await server.state(of: UUID().uuidString) == nil)
                let displayed = try await server.expectTraceEvent(.displayed, of: apnsID)
                #expect(displayed.detail["title"] == .string("State"))
                #expect(displayed.detail["identifier"] == .string("s"))
                #expect(displayed.detailValue("presentation") == .array([.string("list"), .string("banner")]))
                #expect(displayed.detailValue("no.such.path") == nil)
                let failure = await #expect(throws: HeraldExpectationFailure.self) {
                    try await server.expectState(of: apnsID, is: .expired, within: .milliseconds(100))
                }
                #expect(failure?.description.contains("but it is delivered") == true)
                let trace = try await server.expectTrace(of: apnsID, "to have a displayed event after its acknowledgement") { events in
                    guard let ack = events.firstIndex(where: { $0.kind == .acknowledged }) else { return false }
                    return events[ack...].contains { $0.kind == .displayed }
                }
                #expect(trace.first?.kind == .accepted)
            }
        }
    }

    @Test("the notification center as a whole, a removed notification, the app's snapshot and callbacks")
    func centerAndApp() async throws {
        try await withHeraldServer(HeraldTestServer.Options.cleartextOnly) { server in
            let device = try await server.addDevice(named: "Kit phone", apps: [Self.app])
            try await server.withProviderClient(tls: false) { client in
                let token = try device.token(for: Self.app)
                _ = try await Self.send("One", to: token, with: client, collapseID: "one")
                _ = try await Self.send("Two", to: token, with: client, collapseID: "two")
                let shown = try await device.expectNotificationCenter(in: Self.app, "listing both") { $0.count == 2 }
                #expect(Set(shown.map(\.title)) == ["One", "Two"])
                let failure = await #expect(throws: HeraldExpectationFailure.self) {
                    try await device.expectNotificationCenter(in: Self.app, within: .milliseconds(100), "empty") { $0.isEmpty }
                }
                #expect(failure?.description.contains("notification center is not empty") == true)
                #expect(failure?.description.contains("one: \"One\" \"Hi\"") == true)

                try await device.dismiss("one", in: Self.app)
                try await device.expectNotificationRemoved("one", in: Self.app)
                #expect(try await device.app(Self.app).center.threads.flatMap(\.notifications).map(\.identifier) == ["two"])
                // Not running: the app was not woken for an alert; launching it is its only callback so far.
                #expect(try await device.app(Self.app).state == .notRunning)
                #expect(!(try await device.callbacks(in: Self.app)).contains(.willPresent))
                try await device.setState(.foreground, in: Self.app)
                #expect(try await device.app(Self.app).state == .foreground)
                #expect(try await device.callbacks(in: Self.app).contains(.didBecomeActive))
                await #expect(throws: HeraldExpectationFailure.self) { try await device.app("com.example.missing") }
            }
        }
    }

    @Test("expand and playPause send their reports on the link: the trace records expanded (and a refused tap throws)")
    func expandIsTraced() async throws {
        try await withHeraldServer(HeraldTestServer.Options.cleartextOnly) { server in
            let device = try await server.addDevice(apps: [Self.app])
            try await server.withProviderClient(tls: false) { client in
                let apnsID = try await Self.send("Expand me", to: device.token(for: Self.app), with: client, collapseID: "e")
                try await device.expectNotification(titled: "Expand me", in: Self.app)
                // The center shows it a moment before the device's report of it is told: wait for that too, so the
                // order below is the device's, not the race's (seen under load).
                try await device.expectReport(.displayed, for: apnsID)
                let reports = try await device.expand("e", in: Self.app)
                #expect(reports.map(\.event) == [.expanded])
                try await server.expectTrace(of: apnsID, contains: .expanded)
                #expect(device.reports(for: apnsID).map(\.event) == [.displayed, .expanded])
                // No content extension, so no media button.
                await #expect(throws: SimulatorError.self) { try await device.playPause(in: Self.app) }
                try await device.collapse(in: Self.app)
            }
        }
    }
}
