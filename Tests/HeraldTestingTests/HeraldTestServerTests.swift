import Foundation
import HeraldCore
import HeraldGateway
import HeraldProviderClient
import HeraldStore
import HeraldTestTiers
import HeraldTesting
import Testing

/// The testing kit itself, live on ephemeral ports (tier 3).
@Suite("Testing kit: HeraldTestServer and TestDevice", .tier(.inProcess))
struct HeraldTestServerTests {
    static let app = "com.example.kit"

    static func alert(_ title: String) -> [UInt8] {
        Array(#"{"aps":{"alert":{"title":"\#(title)","body":"Hi"}}}"#.utf8)
    }

    static func send(_ title: String, to token: String, with client: APNSProviderClient, expiration: Int64? = nil) async throws -> String {
        let request = APNSRequest(deviceToken: token, payload: alert(title), topic: app, pushType: .alert, expiration: expiration)
        let response = try await client.send(request)
        #expect(response.status == 200, "reason: \(String(describing: response.reason))")
        return try #require(response.apnsID)
    }

    @Test("Gives credentials, URLs on free ports, and a .p8 file that matches the key")
    func credentials() async throws {
        let directory = try await withHeraldServer { server in
            #expect(server.cleartextURL.hasPrefix("http://127.0.0.1:"))
            #expect(server.tlsURL?.hasPrefix("https://127.0.0.1:") == true)
            #expect(server.deviceLinkURL.hasSuffix("/device-link"))
            #expect(server.credentials.teamID == "TEAMHERALD")
            let p8 = try String(contentsOf: server.credentials.p8File, encoding: .utf8)
            #expect(p8 == server.credentials.p8)
            #expect(FileManager.default.fileExists(atPath: server.credentials.caCertificateFile.path))
            return server.dataDirectory
        }
        // Always cleaned up.
        #expect(!FileManager.default.fileExists(atPath: directory.path))
    }

    @Test("faults: a rule added to the kit's server fails the next push with 503, then the push goes through")
    func faultThenDelivery() async throws {
        try await withHeraldServer { server in
            let device = try await server.addDevice(apps: [Self.app])
            try server.faults.add(FaultRule(json: Array(#"{"match": {"topic": "\#(Self.app)"}, "status": 503, "count": 1}"#.utf8)))
            let client = try server.makeProviderClient(tls: false)
            do {
                let token = try await device.token(for: Self.app)
                let failed = try await client.send(APNSRequest(deviceToken: token, payload: Self.alert("Again"), topic: Self.app, pushType: .alert))
                #expect(failed.status == 503)
                #expect(failed.reason == .serviceUnavailable)
                _ = try await Self.send("Again", to: token, with: client)
                let shown = try await device.expectNotification(titled: "Again", in: Self.app, within: .seconds(5))
                #expect(shown.body == "Hi")
                #expect(server.faults.entries.map(\.failed) == [1])
            } catch {
                await client.shutdown()
                throw error
            }
            await client.shutdown()
        }
    }

    @Test("A push over h2c or TLS shows on the device, and its trace records it", arguments: [false, true])
    func notificationShows(tls: Bool) async throws {
        try await withHeraldServer { server in
            let device = try await server.addDevice(apps: [Self.app])
            let client = try server.makeProviderClient(tls: tls)
            do {
                let apnsID = try await Self.send("Hello", to: device.token(for: Self.app), with: client)
                let shown = try await device.expectNotification(titled: "Hello", in: Self.app, within: .seconds(5))
                #expect(shown.body == "Hi")
                let trace = try await server.expectTrace(of: apnsID, contains: .displayed, within: .seconds(5))
                #expect(trace.first?.kind == .accepted)
                let snapshot = await device.snapshot()
                #expect(snapshot.apps.map(\.bundleID) == [Self.app])
            } catch {
                await client.shutdown()
                throw error
            }
            await client.shutdown()
        }
    }

    @Test("An expectation that does not hold fails by its deadline with what was seen")
    func expectationFailureMessage() async throws {
        try await withHeraldServer(HeraldTestServer.Options.cleartextOnly) { server in
            let device = try await server.addDevice(named: "Kit phone", apps: [Self.app])
            let failure = await #expect(throws: HeraldExpectationFailure.self) {
                try await device.expectNotification(titled: "Never", in: Self.app, within: .milliseconds(200))
            }
            #expect(failure?.description.contains("device 'Kit phone'") == true)
            #expect(failure?.description.contains("shows no notification titled \"Never\"") == true)
            #expect(failure?.description.contains("(it shows none)") == true)
            let traceFailure = await #expect(throws: HeraldExpectationFailure.self) {
                try await server.expectTrace(of: UUID().uuidString, endsIn: .expired, within: .milliseconds(100))
            }
            #expect(traceFailure?.description.contains("no trace") == true)
        }
    }

    @Test("Advancing the server's clock expires a stored notification without sleeping")
    func expiryWithTheClock() async throws {
        try await withHeraldServer(HeraldTestServer.Options.cleartextOnly) { server in
            let token = try await server.offlineToken(for: Self.app)
            let client = try server.makeProviderClient(tls: false)
            do {
                let apnsID = try await Self.send("Later", to: token, with: client, expiration: server.clock.nowMilliseconds() / 1000 + 3600)
                try await server.expectTrace(of: apnsID, endsIn: .stored)
                server.clock.advance(by: .seconds(3601))
                let trace = try await server.expectTrace(of: apnsID, endsIn: .expired, within: .seconds(5))
                #expect(trace.map(\.kind).contains(.accepted))
            } catch {
                await client.shutdown()
                throw error
            }
            await client.shutdown()
        }
    }

    @Test("A tap on the device is reported on the link and lands in the trace")
    func tapIsTraced() async throws {
        try await withHeraldServer(HeraldTestServer.Options.cleartextOnly) { server in
            let device = try await server.addDevice(apps: [Self.app])
            let client = try server.makeProviderClient(tls: false)
            do {
                let apnsID = try await Self.send("Tap me", to: device.token(for: Self.app), with: client)
                let shown = try await device.expectNotification(titled: "Tap me", in: Self.app)
                try await device.tap(shown.identifier, in: Self.app)
                try await server.expectTrace(of: apnsID, contains: .action, within: .seconds(5))
            } catch {
                await client.shutdown()
                throw error
            }
            await client.shutdown()
        }
    }
}

extension HeraldTestServer.Options {
    static var cleartextOnly: Self {
        var options = Self()
        options.tls = false
        return options
    }
}
