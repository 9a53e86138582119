import Foundation
import HeraldCore
import HeraldProviderClient
import HeraldStore
import HeraldTestSupport
import HeraldTestTiers
import HeraldTesting
import Testing

/// The disk budget in a running server (docs/delivery.md, "Retention"): `503` at the budget, stored notifications
/// never pruned by size, finished ones pruned oldest first, and pushes accepted and delivered again.
@Suite("Disk budget in a running server", .tier(.inProcess))
struct StoreBudgetTests {
    static let app = "com.example.budget"

    /// An alert of about 3 KB, so that a few hundred fill a small budget.
    static func bigAlert(_ index: Int) -> [UInt8] {
        Array(#"{"aps":{"alert":{"title":"n\#(index)","body":"\#(String(repeating: "b", count: 3000))"}}}"#.utf8)
    }

    @Test("At the budget providers get 503; stored notifications stay; once they expire they are pruned and pushes are delivered")
    func budgetInAServer() async throws {
        var options = HeraldTestServer.Options.cleartextOnly
        options.maximumStoreBytes = 600 * 1024
        options.offlineSlotsPerApp = 10_000
        try await withHeraldServer(options) { server in
            let retention = try #require(server.server.retention, "a budget runs the retention service")
            let device = try await server.addDevice(apps: [Self.app])
            let offline = try await server.offlineToken(for: Self.app)
            try await server.withProviderClient(tls: false) { client in
                let expiration = server.clock.nowMilliseconds() / 1000 + 3600
                var stored: [String] = []
                var refusal: APNSResponse?
                for index in 0..<1000 {
                    let request = APNSRequest(
                        deviceToken: offline,
                        payload: Self.bigAlert(index),
                        topic: Self.app,
                        pushType: .alert,
                        expiration: expiration
                    )
                    let response = try await client.send(request)
                    guard response.status == 200 else {
                        refusal = response
                        break
                    }
                    stored.append(try #require(response.apnsID))
                }
                #expect(refusal?.status == 503)
                #expect(refusal?.reason == .serviceUnavailable)
                #expect(stored.count > 50)
                #expect(try await retention.pruneToBudget() == 0, "stored notifications are never pruned by size")
                let toDevice = APNSRequest(
                    deviceToken: try device.token(for: Self.app),
                    payload: Self.bigAlert(-1),
                    topic: Self.app,
                    pushType: .alert
                )
                #expect(try await client.send(toDevice).status == 503)
                for apnsID in stored {
                    #expect(try await server.state(of: apnsID) == .stored)
                }

                // They finish (expire); the budget's rule prunes them, and the device gets the next push.
                // The service's own budget pass (every second) may prune them as soon as they expire: expired or gone.
                server.clock.advance(by: .seconds(3601))
                var waiting = stored
                try await eventually("the stored notifications expire", every: .milliseconds(50), state: "\(waiting.count) still stored") {
                    var still: [String] = []
                    for apnsID in waiting where try await server.state(of: apnsID) == .stored { still.append(apnsID) }
                    waiting = still
                    return waiting.isEmpty
                }
                _ = try await retention.pruneToBudget()
                let size = try await #require(server.server.store as? SQLiteStore).size()
                #expect(size.usedBytes < 600 * 1024 * 8 / 10)
                let accepted = try await client.send(toDevice)
                #expect(accepted.status == 200)
                _ = try await device.expectNotification(titled: "n-1", in: Self.app)

                let metrics = try await Self.metrics(server)
                #expect(Self.value(#"herald_notifications_pruned_total{rule="budget",state="expired"}"#, in: metrics) ?? 0 > 0)
                #expect(Self.value("herald_store_budget_bytes", in: metrics) == Double(600 * 1024))
                #expect(Self.value("herald_store_size_bytes", in: metrics) ?? 0 > 0)
            }
        }
    }

    @Test("Without a budget the retention service runs for the age rule alone")
    func noBudget() async throws {
        var options = HeraldTestServer.Options.cleartextOnly
        options.maximumStoreBytes = nil
        try await withHeraldServer(options) { server in
            // Retention is on by default: the service runs for it alone, and has no budget to keep.
            let retention = try #require(server.server.retention)
            #expect(try #require(server.server.store as? SQLiteStore).budget == nil)
            #expect(try await retention.pruneToBudget() == 0)
        }
    }

    /// The value of the series `name` (with its labels) in `lines`.
    static func value(_ name: String, in lines: [String]) -> Double? {
        lines.first { $0.hasPrefix(name + " ") }.flatMap { Double($0.dropFirst(name.count + 1)) }
    }

    static func metrics(_ server: HeraldTestServer) async throws -> [String] {
        let root = try #require(server.inspectionURL.components(separatedBy: "api/v1/").first)
        let response = try await ConsoleWiringTests.get(root + "metrics")
        #expect(response.status == 200)
        return String(decoding: response.body, as: UTF8.self).split(separator: "\n").map(String.init)
    }
}
