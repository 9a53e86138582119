import Foundation
import HeraldCore
import HeraldProviderClient
import HeraldSimulator
import HeraldStore
import HeraldTestTiers
import HeraldTesting
import Testing

/// The device link's order: what a provider sends back to back is handled, and reported, in the order it was sent.
@Suite("Testing kit: a linked device reports in the order it handles notifications", .tier(.inProcess))
struct LinkedDeviceOrderTests {
    static let app = "com.example.order"

    @Test("200 notifications sent back to back: reports leave the device in the order sent; the center lists them so")
    func reportsInOrder() async throws {
        try await withHeraldServer(HeraldTestServer.Options.cleartextOnly) { server in
            let device = try await server.addDevice(apps: [Self.app])
            let token = try device.token(for: Self.app)
            let sent = try await server.withProviderClient(tls: false) { client in
                var sent: [NotificationID] = []
                for index in 0..<200 {
                    let payload = Array(#"{"aps":{"alert":"n\#(index)"}}"#.utf8)
                    let response = try await client.send(APNSRequest(deviceToken: token, payload: payload, topic: Self.app, collapseID: "c\(index)"))
                    sent.append(try #require(response.apnsID.flatMap(NotificationID.init)))
                }
                return sent
            }
            let displayed = try await device.expectNotificationCenter(in: Self.app, within: .seconds(30), "listing all 200") { $0.count == 200 }
            #expect(displayed.map(\.body) == (0..<200).reversed().map { "n\($0)" })
            try await server.expectTrace(of: sent[199].text, contains: .displayed, within: .seconds(10))
            // Reports are told (and sent on the link) in the order the device handled the notifications.
            let position = Dictionary(uniqueKeysWithValues: sent.enumerated().map { ($1, $0) })
            let order = device.reports.filter { $0.event == .displayed }.compactMap { $0.apnsID.flatMap { position[$0] } }
            let misplaced = order.enumerated().filter { $0.offset != $0.element }.map { "#\($0.element) told \($0.offset)th" }
            #expect(order.count == 200)
            #expect(misplaced.isEmpty, "reports told out of order: \(misplaced)")
        }
    }
}
