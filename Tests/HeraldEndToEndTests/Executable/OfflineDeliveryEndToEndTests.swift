import Foundation
import HeraldTestTiers
import Testing

/// Tier 3 with real processes: store-and-forward. A `herald device` registers its app and stops; `herald send`
/// posts while it is away; what the device prints when it comes back, and the traces, follow APNs' rules
/// (docs/delivery.md rules 7–12).
@Suite("End to end: store-and-forward to an offline herald device", .serialized, .tier(.process))
struct OfflineDeliveryEndToEndTests {
    /// Starts a device once so that its app has a token, stops it, and waits until the server sees it offline.
    static func registeredOfflineDevice(
        _ workspace: HeraldWorkspace,
        _ server: HeraldServeProcess
    ) async throws -> (credentials: DeviceCredentials, token: String) {
        let credentials = try await workspace.addDevice("phone")
        let device = try await HeraldDeviceProcess.start(in: workspace, server: server, device: credentials)
        let token = try await device.token(for: HeraldWorkspace.topic)
        try await goOffline(device, credentials, server)
        return (credentials, token)
    }

    static func goOffline(_ device: HeraldDeviceProcess, _ credentials: DeviceCredentials, _ server: HeraldServeProcess) async throws {
        try await device.stop()
        try await server.waitUntil(deviceID: credentials.id, isOnline: false)
    }

    /// Waits for the state, then returns the notification with its trace.
    static func state(_ state: String, of apnsID: String, on server: HeraldServeProcess) async throws -> TracedNotification {
        try await server.waitForNotification(apnsID, "state \(state)", deadline: .seconds(90)) { $0.state == state }
    }

    @Test("default: only the newest waits (the older is replaced); expiration 0, a past or a passing expiration → expired")
    func onlyTheNewestWaits() async throws {
        try await HeraldWorkspace.with { workspace in
            let server = try await HeraldServeProcess.start(in: workspace)
            let (credentials, token) = try await Self.registeredOfflineDevice(workspace, server)

            let nowOrNever = try await server.send(token: token, ["--alert", "now or never", "--expiration", "0"])
            let zero = try await Self.state("expired", of: nowOrNever, on: server)
            #expect(zero.kinds == ["accepted", "expired"], "\(zero)")
            #expect(zero.detail(of: "expired")?["reason"] as? String == "expiration-zero-offline", "\(zero)")

            let late = try await server.send(token: token, ["--alert", "too late", "--expiration", "1"])
            let past = try await Self.state("expired", of: late, on: server)
            #expect(past.detail(of: "expired")?["reason"] as? String == "expiration-past", "\(past)")

            // Stored, then its time passes while the device is away.
            let brief = try await server.send(token: token, ["--alert", "brief", "--expiration", "+2"])
            let passed = try await Self.state("expired", of: brief, on: server)
            #expect(passed.kinds == ["accepted", "stored", "expired"], "\(passed)")
            #expect(passed.detail(of: "expired")?["reason"] as? String == "expired", "\(passed)")

            let older = try await server.send(token: token, ["--alert", "first"])
            let newer = try await server.send(token: token, ["--alert", "second"])
            let replaced = try await Self.state("replaced", of: older, on: server)
            #expect(replaced.kinds == ["accepted", "stored", "replaced"], "\(replaced)")
            #expect(replaced.detail(of: "replaced")?["reason"] as? String == "offline-storage-limit", "\(replaced)")
            #expect((replaced.detail(of: "replaced")?["by"] as? String)?.lowercased() == newer.lowercased(), "\(replaced)")
            let waiting = try #require(try await server.notification(newer))
            #expect(waiting.state == "stored" && waiting.kinds == ["accepted", "stored"], "\(waiting)")

            // Back online: the newest, and only it.
            let device = try await HeraldDeviceProcess.start(in: workspace, server: server, device: credentials)
            let printed = try await device.waitForNotification(newer)
            #expect(printed["attempt"] as? Int == 1, "\(printed)")
            let delivered = try await server.waitForNotification(newer, "displayed") { $0.kinds.contains("displayed") }
            #expect(delivered.state == "delivered", "\(delivered)")
            #expect(delivered.kinds == ["accepted", "stored", "sent", "acknowledged", "displayed"], "\(delivered)")
            #expect(device.printedIDs == [newer.lowercased()], "\(device.describe())")
            let final = try await workspace.trace(older)
            #expect(final?.state == "replaced", "\(final.map { "\($0)" } ?? "none")")
        }
    }

    @Test("--offline-slots 2: the two newest wait and arrive oldest first; a newer collapse id replaces a waiting one")
    func twoSlotsAndCollapseID() async throws {
        try await HeraldWorkspace.with { workspace in
            let server = try await HeraldServeProcess.start(in: workspace, options: ["--offline-slots", "2"])
            let (credentials, token) = try await Self.registeredOfflineDevice(workspace, server)

            var sent: [String] = []
            for text in ["one", "two", "three"] {
                sent.append(try await server.send(token: token, ["--alert", text]))
            }
            let first = try await Self.state("replaced", of: sent[0], on: server)
            #expect(first.detail(of: "replaced")?["reason"] as? String == "offline-storage-limit", "\(first)")
            #expect((first.detail(of: "replaced")?["by"] as? String)?.lowercased() == sent[2].lowercased(), "\(first)")

            var device = try await HeraldDeviceProcess.start(in: workspace, server: server, device: credentials)
            for id in sent.dropFirst() {
                _ = try await device.waitForNotification(id)
                let delivered = try await Self.state("delivered", of: id, on: server)
                #expect(delivered.kinds.prefix(4) == ["accepted", "stored", "sent", "acknowledged"], "\(delivered)")
            }
            #expect(device.printedIDs == sent.dropFirst().map { $0.lowercased() }, "\(device.describe())")
            try await Self.goOffline(device, credentials, server)

            // Two with the same collapse id and one without: the collapse id replaces, the slots keep the rest.
            let score1 = try await server.send(token: token, ["--alert", "1–0", "--collapse-id", "score"])
            let other = try await server.send(token: token, ["--alert", "kick-off in 5"])
            let score2 = try await server.send(token: token, ["--alert", "2–0", "--collapse-id", "score"])
            let collapsed = try await Self.state("replaced", of: score1, on: server)
            #expect(collapsed.kinds == ["accepted", "stored", "replaced"], "\(collapsed)")
            #expect(collapsed.detail(of: "replaced")?["reason"] as? String == "collapse-id", "\(collapsed)")
            #expect((collapsed.detail(of: "replaced")?["by"] as? String)?.lowercased() == score2.lowercased(), "\(collapsed)")

            device = try await HeraldDeviceProcess.start(in: workspace, server: server, device: credentials)
            let latest = try await device.waitForNotification(score2)
            #expect(latest["collapseID"] as? String == "score", "\(latest)")
            _ = try await device.waitForNotification(other)
            for id in [other, score2] { _ = try await Self.state("delivered", of: id, on: server) }
            #expect(device.printedIDs == [other.lowercased(), score2.lowercased()], "\(device.describe())")
        }
    }
}
