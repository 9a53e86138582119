import Foundation
import HeraldCore
import HeraldProviderClient
import HeraldTestSupport
import HeraldTestTiers
import HeraldTesting
import Testing

/// `GET /api/v1/notifications` with filters, as a test written in any language asks it (docs/inspection-api.json).
@Suite("Inspection API: notification filters (topic, state, since, collapseID, text)", .tier(.inProcess))
struct NotificationFilterTests {
    static let app = "com.example.filters"
    static let other = "com.example.other"

    @Test("each filter keeps exactly the notifications it names; several together must all hold; bad values are 400")
    func filters() async throws {
        try await withHeraldServer { server in
            let device = try await server.addDevice(apps: [Self.app])
            let online = try await device.token(for: Self.app)
            let offline = try await server.offlineToken(for: Self.other)
            var ids: [String: String] = [:]
            // What the `since` filter asks for: read on the server's clock (the system's plus the jump) just after the
            // jump, so that "second" is accepted after it however long a loaded machine takes, and "first" 10 s before.
            var since: Int64 = 0
            try await server.withProviderClient(tls: false) { client in
                func send(_ name: String, to token: String, topic: String, collapseID: String? = nil) async throws {
                    let payload = Array(#"{"aps":{"alert":"\#(name)"},"order":"\#(name)"}"#.utf8)
                    let request = APNSRequest(deviceToken: token, payload: payload, topic: topic, pushType: .alert, collapseID: collapseID)
                    let response = try await client.send(request)
                    #expect(response.status == 200)
                    ids[name] = try #require(response.apnsID)
                }
                try await send("first", to: online, topic: Self.app, collapseID: "score")
                // Delivered before the clock moves: on a loaded machine its acknowledgement could otherwise come after
                // the jump, ten seconds late by the server's clock.
                try await server.expectState(of: ids["first"]!, is: .delivered, within: .seconds(5))
                server.clock.advance(by: .seconds(10))
                since = server.clock.nowMilliseconds()
                try await send("second", to: online, topic: Self.app)
                try await send("waiting", to: offline, topic: Self.other)
            }
            try await server.expectState(of: ids["second"]!, is: .delivered, within: .seconds(5))

            func names(_ query: String) async throws -> [String] {
                let answer = try await ConsoleHTTP.get(server.inspectionURL, "notifications?" + query)
                #expect(answer.status == 200, "\(query): \(String(decoding: answer.body, as: UTF8.self))")
                let listed = answer.object?["notifications"] as? [[String: Any]] ?? []
                return listed.compactMap { item in ids.first { $0.value == item["apnsID"] as? String }?.key }
            }
            #expect(try await names("topic=\(Self.app)") == ["second", "first"])
            #expect(try await names("state=stored") == ["waiting"])
            #expect(try await names("state=delivered&topic=\(Self.other)") == [])
            #expect(try await names("since=\(since)&topic=\(Self.app)") == ["second"])
            #expect(try await names("collapseID=score") == ["first"])
            #expect(try await names("text=%22order%22%3A%22waiting%22") == ["waiting"])
            #expect(try await names("topic=\(Self.app)&limit=1") == ["second"])
            #expect(try await names("token=\(online)&state=delivered") == ["second", "first"])

            for (query, message) in [
                ("state=lost", "state must be one of stored, delivered, expired, replaced, discarded"),
                ("since=yesterday", "since must be milliseconds since the epoch (0 to 8999999999999999)"),
                ("since=9000000000000000", "since must be milliseconds since the epoch (0 to 8999999999999999)"),
                ("text=", "text must be 1 to 64 characters"),
                ("text=" + String(repeating: "a", count: 65), "text must be 1 to 64 characters"),
            ] {
                let answer = try await ConsoleHTTP.get(server.inspectionURL, "notifications?" + query)
                #expect(answer.status == 400, "\(query)")
                #expect(answer.object?["error"] as? String == message, "\(query)")
            }
        }
    }
}
