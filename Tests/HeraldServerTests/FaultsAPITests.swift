import Foundation
import HeraldCore
import HeraldGateway
import HeraldProviderClient
import HeraldTestSupport
import HeraldTestTiers
import HeraldTesting
import Testing

/// `/api/v1/faults` on the web port of a server in-process: add, list, remove, and the provider API obeying.
@Suite("Faults API: /api/v1/faults", .tier(.inProcess))
struct FaultsAPITests {
    static let app = "com.example.faults"

    @Test("POST a rule → 201 with its id; pushes get its answer; GET lists it with applied/remaining; DELETE by id → 204")
    func addListRemove() async throws {
        try await withHeraldServer { server in
            let device = try await server.addDevice(apps: [Self.app])
            let token = try await device.token(for: Self.app)
            let added = try await ConsoleHTTP.post(
                server.inspectionURL,
                "faults",
                text: #"{"id": "down", "match": {"topic": "\#(Self.app)"}, "status": 503, "count": 1}"#
            )
            #expect(added.status == 201, "\(String(decoding: added.body, as: UTF8.self))")
            #expect(added.object?["id"] as? String == "down")
            #expect(added.object?["remaining"] as? Int == 1)
            #expect(added.object?["applied"] as? Int == 0)

            try await server.withProviderClient(tls: false) { client in
                let request = APNSRequest(deviceToken: token, payload: Array(#"{"aps":{"alert":"x"}}"#.utf8), topic: Self.app, pushType: .alert)
                let failed = try await client.send(request)
                #expect(failed.status == 503 && failed.reason == .serviceUnavailable)
                #expect(try await client.send(request).status == 200)
            }
            let listed = try await ConsoleHTTP.get(server.inspectionURL, "faults")
            let rules = try #require(listed.object?["faults"] as? [[String: Any]])
            #expect(rules.count == 1)
            #expect(rules.first?["applied"] as? Int == 1)
            #expect(rules.first?["remaining"] as? Int == 0)
            #expect(rules.first?["reason"] as? String == "ServiceUnavailable")

            #expect(try await ConsoleHTTP.delete(server.inspectionURL, "faults/down").status == 204)
            let gone = try await ConsoleHTTP.delete(server.inspectionURL, "faults/down")
            #expect(gone.status == 404)
            #expect(gone.object?["error"] as? String == "no fault rule down")
            #expect(server.faults.isEmpty)
        }
    }

    @Test("a scenario is added as its rule; DELETE /faults removes every rule and says how many")
    func scenarioAndClear() async throws {
        try await withHeraldServer { server in
            let outage = try await ConsoleHTTP.post(server.inspectionURL, "faults", text: #"{"scenario": "apns-outage", "seconds": 30}"#)
            #expect(outage.status == 201)
            #expect(outage.object?["goaway"] as? String == "Shutdown")
            let from = try #require(outage.object?["from"] as? Int)
            #expect(outage.object?["until"] as? Int == from + 30_000)
            #expect(try await ConsoleHTTP.post(server.inspectionURL, "faults", text: #"{"status": 500}"#).status == 201)
            let cleared = try await ConsoleHTTP.delete(server.inspectionURL, "faults")
            #expect(cleared.status == 200)
            #expect(cleared.object?["removed"] as? Int == 2)
            #expect(try await ConsoleHTTP.get(server.inspectionURL, "faults").object?["faults"] as? [Any] != nil)
            #expect(server.faults.isEmpty)
        }
    }

    @Test("an invalid rule → 400 naming the field; a taken id → 400; nothing is added")
    func refusals() async throws {
        try await withHeraldServer { server in
            for (text, message) in [
                (#"{"status": 418}"#, "'status' 418 is not in Apple's table (400, 403, 404, 405, 410, 413, 429, 500, 503)"),
                (#"{"status": 503, "reason": "Unregistered"}"#, "'reason' Unregistered is Apple's answer with status 410, not 503"),
                ("not json", "a rule must be a JSON object: the text is not JSON"),
                (
                    #"{"colour": 1}"#,
                    "unknown field 'colour'; a rule has ackDelayMs, close, count, delay, delayMs, deviceOffline, extensionTimeout, forMs, from, goaway, id, match, probability, reason, reset, seed, stallMs, status, timestamp, until"
                ),
            ] {
                let answer = try await ConsoleHTTP.post(server.inspectionURL, "faults", text: text)
                #expect(answer.status == 400, "\(text)")
                #expect(answer.object?["error"] as? String == message, "\(text)")
            }
            #expect(try await ConsoleHTTP.post(server.inspectionURL, "faults", text: #"{"id": "a", "status": 500}"#).status == 201)
            let twice = try await ConsoleHTTP.post(server.inspectionURL, "faults", text: #"{"id": "a", "status": 500}"#)
            #expect(twice.status == 409)
            #expect(twice.object?["error"] as? String == "a rule with id 'a' is already in force")
            #expect(server.faults.entries.count == 1)
        }
    }
}
