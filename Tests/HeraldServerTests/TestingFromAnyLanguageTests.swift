import Foundation
import HeraldCore
import HeraldGateway
import HeraldProviderClient
import HeraldServer
import HeraldTestSupport
import HeraldTestTiers
import HeraldTesting
import Testing

/// What a test written in any language asks of the web port (docs/testing-from-any-language.md): the notification a
/// provider was answered with by its `apns-unique-id`, a wait instead of a sleep, a reset between tests, and the
/// `fault` events of requests a fault rule applied to.
@Suite("Testing from any language: uniqueID, wait, reset, fault traces", .tier(.inProcess))
struct TestingFromAnyLanguageTests {
    static let app = "com.example.anylanguage"
    static let payload = Array(#"{"aps":{"alert":"Hello"}}"#.utf8)

    private static func names(_ answer: ConsoleHTTP.Response) -> [String] {
        (answer.object?["notifications"] as? [[String: Any]] ?? []).compactMap { $0["apnsID"] as? String }
    }

    @Test("the sandbox's apns-unique-id finds its notification; it is listed with it; a bad one is 400")
    func uniqueID() async throws {
        try await withHeraldServer { server in
            let token = try await server.offlineToken(for: Self.app)
            var answers: [APNSResponse] = []
            try await server.withProviderClient(tls: false) { client in
                for _ in 0..<3 {
                    answers.append(try await client.send(APNSRequest(deviceToken: token, payload: Self.payload, topic: Self.app, pushType: .alert)))
                }
            }
            #expect(answers.allSatisfy { $0.status == 200 })
            let second = answers[1]
            let uniqueID = try #require(second.apnsUniqueID)
            #expect(uniqueID != second.apnsID)
            #expect(Set(answers.compactMap(\.apnsUniqueID)).count == 3)

            let found = try await ConsoleHTTP.get(server.inspectionURL, "notifications?uniqueID=\(uniqueID.uppercased())")
            #expect(found.status == 200)
            #expect(Self.names(found) == [second.apnsID])
            let listed = try #require((found.object?["notifications"] as? [[String: Any]])?.first)
            #expect(listed["uniqueID"] as? String == uniqueID)
            let one = try await ConsoleHTTP.get(server.inspectionURL, "notifications/\(try #require(second.apnsID))")
            #expect(one.object?["uniqueID"] as? String == uniqueID)

            let none = try await ConsoleHTTP.get(server.inspectionURL, "notifications?uniqueID=\(NotificationID.random().text)")
            #expect(none.status == 200 && Self.names(none).isEmpty)
            let bad = try await ConsoleHTTP.get(server.inspectionURL, "notifications?uniqueID=nope")
            #expect(bad.status == 400)
            #expect(bad.object?["error"] as? String == "uniqueID must be an apns-unique-id (a UUID)")
        }
    }

    @Test("wait answers at once when enough match, as soon as a delivery happens, and 408 with the count after its timeout")
    func wait() async throws {
        try await withHeraldServer { server in
            let offline = try await server.offlineToken(for: Self.app)
            let apnsID = try await server.withProviderClient(tls: false) { client in
                try #require(
                    try await client.send(APNSRequest(deviceToken: offline, payload: Self.payload, topic: Self.app, pushType: .alert)).apnsID
                )
            }
            // Already true: one notification for the topic.
            let now = try await ConsoleHTTP.get(server.inspectionURL, "notifications/wait?topic=\(Self.app)&timeoutMs=0")
            #expect(now.status == 200)
            #expect(Self.names(now) == [apnsID])

            // Never true within 300 ms: it is stored, not delivered.
            let started = ContinuousClock.now
            let late = try await ConsoleHTTP.get(server.inspectionURL, "notifications/wait?topic=\(Self.app)&state=delivered&timeoutMs=300")
            #expect(late.status == 408)
            #expect(ContinuousClock.now - started >= .milliseconds(300))
            #expect(late.object?["matched"] as? Int == 0)
            #expect(late.object?["count"] as? Int == 1)
            #expect(late.object?["error"] as? String == "0 of 1 notifications matched within 300 ms")

            // Becomes true while waiting: a device comes online and the notification is delivered.
            let device = try await server.addDevice(apps: [Self.app])
            let token = try device.token(for: Self.app)
            async let waited = ConsoleHTTP.get(server.inspectionURL, "notifications/wait?token=\(token)&state=delivered&count=2&timeoutMs=20000")
            try await server.withProviderClient(tls: false) { client in
                for _ in 0..<2 {
                    let response = try await client.send(APNSRequest(deviceToken: token, payload: Self.payload, topic: Self.app, pushType: .alert))
                    #expect(response.status == 200)
                }
            }
            let answer = try await waited
            #expect(answer.status == 200)
            #expect(Self.names(answer).count == 2)

            for (query, message) in [
                ("count=0", "count must be an integer from 1 to 10000"),
                ("timeoutMs=30001", "timeoutMs must be an integer from 0 to 30000"),
                ("timeoutMs=-1", "timeoutMs must be an integer from 0 to 30000"),
                ("state=gone", "state must be one of stored, delivered, expired, replaced, discarded"),
            ] {
                let refused = try await ConsoleHTTP.get(server.inspectionURL, "notifications/wait?" + query)
                #expect(refused.status == 400, "\(query)")
                #expect(refused.object?["error"] as? String == message, "\(query)")
            }
        }
    }

    @Test("reset discards what waits, deletes every notification and fault rule, keeps devices; the next push is delivered")
    func reset() async throws {
        try await withHeraldServer { server in
            let device = try await server.addDevice(apps: [Self.app])
            let online = try device.token(for: Self.app)
            let offline = try await server.offlineToken(for: "com.example.other")
            var delivered: String?
            var waiting: String?
            try await server.withProviderClient(tls: false) { client in
                delivered = try await client.send(APNSRequest(deviceToken: online, payload: Self.payload, topic: Self.app, pushType: .alert)).apnsID
                waiting = try await client.send(
                    APNSRequest(deviceToken: offline, payload: Self.payload, topic: "com.example.other", pushType: .alert)
                ).apnsID
            }
            try await server.expectState(of: try #require(delivered), is: .delivered)
            #expect(
                try await ConsoleHTTP.post(server.inspectionURL, "faults", text: #"{"match": {"topic": "nothing.here"}, "status": 500}"#).status
                    == 201
            )

            let refused = try await ConsoleHTTP.post(server.inspectionURL, "reset", text: #"{"devices": true}"#)
            #expect(refused.status == 400)
            let unknown = try await ConsoleHTTP.post(server.inspectionURL, "reset", text: #"{"everything": true}"#)
            #expect(unknown.object?["error"] as? String == "unknown field 'everything': a reset takes notifications, faults and devices")
            #expect(try await ConsoleHTTP.post(server.inspectionURL, "reset", text: #"{"faults": 1}"#).status == 400)

            let reset = try await ConsoleHTTP.request(server.inspectionURL, "reset", method: "POST", body: nil)
            #expect(reset.status == 200, "\(String(decoding: reset.body, as: UTF8.self))")
            #expect(reset.object?["discarded"] as? Int == 1)
            #expect(reset.object?["deleted"] as? Int == 2)
            #expect(reset.object?["faultsRemoved"] as? Int == 1)
            #expect(Self.names(try await ConsoleHTTP.get(server.inspectionURL, "notifications")).isEmpty)
            #expect(try await ConsoleHTTP.get(server.inspectionURL, "notifications/\(try #require(waiting))").status == 404)
            #expect(server.faults.isEmpty)
            let devices = try await ConsoleHTTP.get(server.inspectionURL, "devices")
            #expect((devices.object?["devices"] as? [Any])?.count == 1)

            let after = try await server.withProviderClient(tls: false) { client in
                try #require(try await client.send(APNSRequest(deviceToken: online, payload: Self.payload, topic: Self.app, pushType: .alert)).apnsID)
            }
            try await server.expectState(of: after, is: .delivered)

            // The kit's reset keeps what it is told to keep.
            try server.faults.add(FaultRule(json: Array(#"{"status": 500, "match": {"topic": "nothing.here"}}"#.utf8)))
            let kept = try await server.reset(ResetOptions(notifications: true, faults: false))
            #expect(kept.deleted == 1 && kept.faultsRemoved == 0)
            #expect(server.faults.entries.count == 1)
        }
    }

    @Test("reset under concurrent pushes and waits: every notification is either gone or delivered, nothing is stuck")
    func resetUnderConcurrentUse() async throws {
        try await withHeraldServer { server in
            let device = try await server.addDevice(apps: [Self.app])
            let token = try device.token(for: Self.app)
            let offline = try await server.offlineToken(for: "com.example.other")
            let accepted = try await withThrowingTaskGroup(of: [String].self) { group in
                for sender in 0..<3 {
                    group.addTask {
                        try await server.withProviderClient(tls: false) { client in
                            var ids: [String] = []
                            for index in 0..<40 {
                                let target = index % 2 == 0 ? (token, Self.app) : (offline, "com.example.other")
                                let request = APNSRequest(deviceToken: target.0, payload: Self.payload, topic: target.1, pushType: .alert)
                                let response = try await client.send(request)
                                if response.status == 200, let id = response.apnsID { ids.append(id) }
                                if sender == 0, index == 20 {
                                    _ = try await ConsoleHTTP.request(server.inspectionURL, "reset", method: "POST", body: nil)
                                }
                            }
                            return ids
                        }
                    }
                }
                group.addTask {
                    // Waiters that the reset must not break: each answers 200 or 408.
                    for _ in 0..<4 {
                        let answer = try await ConsoleHTTP.get(
                            server.inspectionURL,
                            "notifications/wait?token=\(token)&state=delivered&count=5&timeoutMs=500"
                        )
                        #expect([200, 408].contains(answer.status))
                    }
                    return []
                }
                return try await group.reduce(into: []) { $0 += $1 }
            }
            #expect(accepted.count == 120)
            // The online token's notifications settle as delivered (the device acknowledges each); none stays behind.
            try await eventually("the online token's notifications settle", within: .seconds(20), every: .milliseconds(50)) {
                await server.server.engine.waitUntilIdle()
                return Self.names(try await ConsoleHTTP.get(server.inspectionURL, "notifications?token=\(token)&state=stored&limit=10000")).isEmpty
            }
            // What is left is what followed the reset: delivered for the online token; for the offline one, the newest
            // stored and the others replaced by it (one offline slot per app); none discarded, and the engine holds
            // exactly the stored ones.
            let remaining = try #require(
                try await ConsoleHTTP.get(server.inspectionURL, "notifications?limit=10000").object?["notifications"] as? [[String: Any]]
            )
            #expect(remaining.count < 120)
            #expect(remaining.allSatisfy { ["delivered", "stored", "replaced"].contains($0["state"] as? String) })
            #expect(remaining.filter { $0["state"] as? String == "stored" }.count <= 1)
            #expect(server.server.engine.counts.pending == remaining.filter { $0["state"] as? String == "stored" }.count)
        }
    }

    @Test("a request a fault rule applied to has a fault event naming the rule in its trace, before accepted when delayed")
    func faultTrace() async throws {
        try await withHeraldServer { server in
            let token = try await server.offlineToken(for: Self.app)
            try server.faults.add(FaultRule(json: Array(#"{"id": "down", "status": 503, "count": 1}"#.utf8)))
            try server.faults.add(FaultRule(json: Array(#"{"id": "slow", "delayMs": 50, "count": 1}"#.utf8)))
            let (failed, slow) = try await server.withProviderClient(tls: false) { client in
                let request = APNSRequest(deviceToken: token, payload: Self.payload, topic: Self.app, pushType: .alert)
                return (try await client.send(request), try await client.send(request))
            }
            #expect(failed.status == 503 && slow.status == 200)
            let failedTrace = try await ConsoleHTTP.get(server.inspectionURL, "notifications/\(try #require(failed.apnsID))/trace")
            #expect(failedTrace.status == 200)
            let events = try #require(failedTrace.object?["trace"] as? [[String: Any]])
            #expect(events.map { $0["kind"] as? String } == ["fault"])
            let detail = try #require(events.first?["detail"] as? [String: Any])
            #expect(detail["rule"] as? String == "down")
            #expect(detail["status"] as? Int == 503)
            #expect(detail["reason"] as? String == "ServiceUnavailable")

            let slowTrace = try await ConsoleHTTP.get(server.inspectionURL, "notifications/\(try #require(slow.apnsID))")
            let kinds = (slowTrace.object?["trace"] as? [[String: Any]] ?? []).compactMap { $0["kind"] as? String }
            #expect(kinds.first == "fault")
            #expect(kinds.dropFirst().first == "accepted")
            #expect(server.faults.log.count == 2)

            _ = try await server.reset()
            #expect(server.faults.log.count == 0)
            #expect(try await ConsoleHTTP.get(server.inspectionURL, "notifications/\(try #require(failed.apnsID))/trace").status == 404)
        }
    }
}
