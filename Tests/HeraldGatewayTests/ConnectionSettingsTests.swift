import Foundation
import HeraldCore
import HeraldTestSupport
import HeraldTestTiers
import NIOCore
import Testing

/// Connection-level behaviour of the HTTP/2 listeners: the stream gate (spec §A.1), ALPN, body limits, concurrency.
@Suite("HTTP/2 connection settings", .serialized, .tier(.inProcess))
struct ConnectionSettingsTests {
    private static let maximumStreams = 250

    @Test("a token connection gets one stream until its first valid token, then the configured maximum")
    func tokenStreamGate() async throws {
        let fixture = try await GatewayFixture.start { $0.maximumConcurrentStreams = Self.maximumStreams }
        let token = try await fixture.registerToken()
        let client = try await fixture.cleartextClient()
        let path = "/3/device/\(token.hex)"
        // One token for the connection: a re-signed one would be a token update (spec §A.7).
        let headers = fixture.alertHeaders()

        let refused = try await client.send(path: path, headers: [("apns-topic", GatewayFixture.topic)], body: GatewayFixture.alertBody)
        #expect(refused.reason == "MissingProviderToken")
        #expect(client.receivedMaxConcurrentStreams == [1])

        #expect(try await client.send(path: path, headers: headers, body: GatewayFixture.alertBody).status == 200)
        #expect(client.receivedMaxConcurrentStreams == [1, Self.maximumStreams])

        // The limit is raised once per connection.
        #expect(try await client.send(path: path, headers: headers, body: GatewayFixture.alertBody).status == 200)
        #expect(client.receivedMaxConcurrentStreams == [1, Self.maximumStreams])
        await client.close()
        await fixture.stop()
    }

    @Test("a valid token on a rejected request still opens the gate")
    func gateOpensOnValidTokenWithBadTopic() async throws {
        let fixture = try await GatewayFixture.start { $0.maximumConcurrentStreams = Self.maximumStreams }
        let client = try await fixture.cleartextClient()
        let response = try await client.send(path: "/3/device/00", headers: fixture.alertHeaders(), body: GatewayFixture.alertBody)
        #expect(response.reason == "BadDeviceToken")
        #expect(client.receivedMaxConcurrentStreams == [1, Self.maximumStreams])
        await client.close()
        await fixture.stop()
    }

    @Test("a certificate connection starts at the configured maximum")
    func certificateStartsOpen() async throws {
        let fixture = try await GatewayFixture.start { $0.maximumConcurrentStreams = Self.maximumStreams }
        let token = try await fixture.registerToken()
        let client = try await fixture.tlsClient(certificate: try fixture.issueCertificate())
        let response = try await client.send(
            path: "/3/device/\(token.hex)",
            headers: [("apns-topic", GatewayFixture.topic), ("apns-push-type", "alert")],
            body: GatewayFixture.alertBody
        )
        #expect(response.status == 200)
        #expect(client.receivedMaxConcurrentStreams == [Self.maximumStreams])
        await client.close()
        await fixture.stop()
    }

    @Test("a TLS client that offers no ALPN and sends the HTTP/2 preface is served")
    func tlsWithoutALPN() async throws {
        let fixture = try await GatewayFixture.start()
        let token = try await fixture.registerToken()
        let client = try await fixture.tlsClient(applicationProtocols: [])
        let response = try await client.send(path: "/3/device/\(token.hex)", headers: fixture.alertHeaders(), body: GatewayFixture.alertBody)
        #expect(response.status == 200)
        #expect(response.apnsID != nil)
        await client.close()
        await fixture.stop()
    }

    @Test("a 100 KB body is PayloadTooLarge and the connection stays usable")
    func oversizedBody() async throws {
        let fixture = try await GatewayFixture.start()
        let token = try await fixture.registerToken()
        let client = try await fixture.cleartextClient()
        let path = "/3/device/\(token.hex)"
        let headers = fixture.alertHeaders()
        let huge = Array(("{\"aps\":{\"alert\":\"" + String(repeating: "x", count: 100 * 1024) + "\"}}").utf8)

        let response = try await client.send(path: path, headers: headers, body: huge)
        #expect(response.status == 413)
        #expect(response.reason == "PayloadTooLarge")

        let next = try await client.send(path: path, headers: headers, body: GatewayFixture.alertBody)
        #expect(next.status == 200)
        #expect(try await fixture.store.listNotifications(token: token, limit: 10).count == 1)
        await client.close()
        await fixture.stop()
    }

    @Test("200 concurrent requests on one connection are all accepted and stored")
    func concurrentRequests() async throws {
        let fixture = try await GatewayFixture.start()
        let token = try await fixture.registerToken()
        let client = try await fixture.cleartextClient()
        let path = "/3/device/\(token.hex)"
        let headers = fixture.alertHeaders()
        // The first request opens the stream gate (spec §A.1).
        #expect(try await client.send(path: path, headers: headers, body: GatewayFixture.alertBody).status == 200)

        let ids = (0..<200).map { _ in UUID().uuidString.lowercased() }
        let answers = try await withThrowingTaskGroup(of: (String, TestResponse).self) { group in
            for id in ids {
                group.addTask {
                    let response = try await client.send(
                        path: path,
                        headers: headers + [("apns-id", id)],
                        body: GatewayFixture.alertBody,
                        deadline: .seconds(30)
                    )
                    return (id, response)
                }
            }
            var answers: [(String, TestResponse)] = []
            for try await answer in group { answers.append(answer) }
            return answers
        }
        #expect(answers.count == 200)
        #expect(answers.allSatisfy { $0.1.status == 200 })
        #expect(answers.allSatisfy { $0.0 == $0.1.apnsID })
        #expect(try await fixture.store.counts().notifications == 201)
        let stored = Set(try await fixture.store.listNotifications(token: token, limit: 500).map(\.notification.id.text))
        #expect(stored.isSuperset(of: ids))
        await client.close()
        await fixture.stop()
    }
}
