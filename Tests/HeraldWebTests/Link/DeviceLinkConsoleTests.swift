import HeraldCore
import HeraldDeviceLink
import HeraldTestSupport
import HeraldTestTiers
import Testing

@testable import HeraldDelivery
@testable import HeraldWeb

/// The device link's console frames on a live web port (tier 3): screens kept per device, `interact` forwarded
/// and answered, and the size limits.
@Suite("Device link: screens and interactions", .tier(.inProcess))
struct DeviceLinkConsoleTests {
    static let app = "com.example.app"

    /// Waits until the hub has a screen for the device (frames are handled on the event loop, after the send).
    private func screen(
        _ fixture: LinkServerFixture,
        _ deviceID: String,
        matching: @escaping @Sendable ([UInt8]) -> Bool = { _ in true }
    ) async throws
        -> ConsoleHub.Screen
    {
        let hub = fixture.server.console
        return try await eventually("the screen of \(deviceID)") { hub.screen(deviceID: deviceID).flatMap { matching($0.json) ? $0 : nil } }
    }

    @Test("the newest screen is kept per device, also after it disconnects; a screen before hello is refused")
    func screensAreKept() async throws {
        try await LinkServerFixture.with { fixture in
            let credentials = try await fixture.addDevice()
            let early = try await fixture.connect()
            try await early.send(.screen(json: Array(#"{"name":"early"}"#.utf8)))
            guard case .error(let error) = try await early.nextMessage() else {
                Issue.record("expected an error frame")
                return
            }
            #expect(error.code == .notAuthenticated)
            await early.close()

            let client = try await fixture.connect(as: credentials)
            let hub = fixture.server.console
            #expect(hub.isOnline(deviceID: credentials.device.id))
            #expect(hub.screen(deviceID: credentials.device.id) == nil)
            try await client.send(.screen(json: Array(#"{"name":"first","capturedAt":1,"apps":[]}"#.utf8)))
            let second = #"{"name": "second", "capturedAt": 2.5, "apps": [] }"#
            try await client.send(.screen(json: Array(second.utf8)))
            let kept = try await screen(fixture, credentials.device.id) { $0 == Array(second.utf8) }
            #expect(kept.updatedAtMilliseconds == fixture.clock.nowMilliseconds())
            await client.close()
            try await eventually("the device goes offline") { !hub.isOnline(deviceID: credentials.device.id) }
            #expect(hub.screen(deviceID: credentials.device.id)?.json == Array(second.utf8))
            // The log saw the device come and go, and the screens.
            let kinds = hub.events.events(after: 0).events.map(\.change)
            #expect(kinds.contains(.device(deviceID: credentials.device.id, online: true)))
            #expect(kinds.contains(.device(deviceID: credentials.device.id, online: false)))
            #expect(kinds.filter { $0 == .screen(deviceID: credentials.device.id) }.count == 2)
        }
    }

    @Test("a screen that would not decode as a DeviceSnapshot gets malformed-frame naming the member; the kept one stays")
    func screenShape() async throws {
        try await LinkServerFixture.with { fixture in
            let credentials = try await fixture.addDevice()
            let client = try await fixture.connect(as: credentials)
            let valid = #"{"name":"phone","capturedAt":1700000000.5,"apps":[]}"#
            try await client.send(.screen(json: Array(valid.utf8)))
            _ = try await screen(fixture, credentials.device.id)
            let wrong: [(screen: String, problem: String)] = [
                (#"{"name":"phone","apps":[]}"#, "screen.capturedAt is required"),
                (#"{"name":"phone","capturedAt":"yesterday","apps":[]}"#, "screen.capturedAt must be a number"),
                (#"{"name":"phone","capturedAt":1,"apps":[{"bundleID":"com.example.app"}]}"#, "screen.apps[0].name is required"),
            ]
            for (text, problem) in wrong {
                try await client.send(.screen(json: Array(text.utf8)))
                guard case .error(let error) = try await client.nextMessage() else {
                    Issue.record("expected an error frame")
                    return
                }
                #expect(error.code == .malformedFrame)
                #expect(error.message.contains(problem), "\(error.message)")
            }
            // The link is still up, and the kept screen is the valid one.
            #expect(try await client.register(bundleID: Self.app, environment: .sandbox).bundleID == Self.app)
            #expect(fixture.server.console.screen(deviceID: credentials.device.id)?.json == Array(valid.utf8))
        }
    }

    @Test("a screen may be up to 1 MiB; other messages stay limited to 64 KiB; a larger screen is refused")
    func screenSizeLimit() async throws {
        try await LinkServerFixture.with { fixture in
            let credentials = try await fixture.addDevice()
            let client = try await fixture.connect(as: credentials)
            let padding = String(repeating: "x", count: 512 * 1024)
            let large = #"{"name":"large","capturedAt":1,"apps":[],"padding":"\#(padding)"}"#
            try await client.send(.screen(json: Array(large.utf8)))
            let kept = try await screen(fixture, credentials.device.id)
            #expect(kept.json.count == large.utf8.count)

            let tooLarge = #"{"name":"huge","capturedAt":1,"apps":[],"padding":"\#(String(repeating: "y", count: 1100 * 1024))"}"#
            try await client.send(.screen(json: Array(tooLarge.utf8)))
            guard case .error(let error) = try await client.nextMessage() else {
                Issue.record("expected an error frame")
                return
            }
            #expect(error.code == .frameTooLarge)
            let report = #"{"type":"report","apnsID":"8f0e2c2a-1b4e-4d2a-9c53-2f1a0f6b7e01","event":"displayed","detail":{"p":"\#(padding)"}}"#
            try await client.sendRawText(Array(report.utf8))
            guard case .error(let reportError) = try await client.nextMessage() else {
                Issue.record("expected an error frame")
                return
            }
            #expect(reportError.code == .frameTooLarge)
            // The link is still up and the kept screen unchanged.
            #expect(try await client.register(bundleID: Self.app, environment: .sandbox).bundleID == Self.app)
            #expect(fixture.server.console.screen(deviceID: credentials.device.id)?.json.count == large.utf8.count)
            await client.close()
        }
    }

    @Test("an interaction goes to the device as interact and comes back as its interacted: done, refused, timed out, offline")
    func interactions() async throws {
        try await LinkServerFixture.with { fixture in
            let credentials = try await fixture.addDevice()
            let deviceID = credentials.device.id
            let hub = fixture.server.console
            #expect(
                await hub.interact(deviceID: deviceID, timeout: .seconds(5)) { DeviceLinkInteraction(id: $0, bundleID: Self.app, kind: .tap) }
                    == .offline
            )

            let client = try await fixture.connect(as: credentials)
            for answer in [nil, "no such notification"] as [String?] {
                let outcome = Task {
                    await hub.interact(deviceID: deviceID, timeout: .seconds(10)) { id in
                        DeviceLinkInteraction(id: id, bundleID: Self.app, kind: .action, identifier: "n1", action: "REPLY", text: "hi")
                    }
                }
                guard case .interact(let interaction) = try await client.nextMessage() else {
                    Issue.record("expected an interact frame")
                    return
                }
                #expect(interaction.kind == .action)
                #expect(interaction.identifier == "n1")
                #expect(interaction.action == "REPLY")
                #expect(interaction.text == "hi")
                try await client.send(.interacted(DeviceLinkInteractionResult(id: interaction.id, error: answer)))
                #expect(await outcome.value == (answer.map { .refused($0) } ?? .done))
            }
            // No answer in time: timed out; the late answer is ignored (no error frame, no crash).
            let late = await hub.interact(deviceID: deviceID, timeout: .milliseconds(100)) {
                DeviceLinkInteraction(id: $0, bundleID: Self.app, kind: .collapse)
            }
            #expect(late == .timedOut)
            guard case .interact(let unanswered) = try await client.nextMessage() else {
                Issue.record("expected an interact frame")
                return
            }
            try await client.send(.interacted(DeviceLinkInteractionResult(id: unanswered.id)))
            #expect(try await client.register(bundleID: Self.app, environment: .sandbox).bundleID == Self.app)
            await client.close()
        }
    }
}
