import Foundation
import HeraldTestTiers
import NIOCore
import NIOPosix
import Testing

@testable import HeraldWeb

@Suite("Web port limits, live: the request body limit, the wait for a first request, HEAD", .tier(.inProcess))
struct WebLimitsLiveTests {
    @Test("A body over the limit is 413 with a JSON error, before the access policy and the routes")
    func bodyTooLarge() async throws {
        var configuration = WebConfiguration()
        configuration.maximumRequestBodySize = 64
        try await LinkServerFixture.with(configuration: configuration, inspection: true) { fixture in
            let payload = "{\"payload\":\"" + String(repeating: "x", count: 200) + "\"}"
            let json = ["content-type": "application/json"]
            let large = try await InspectionHTTP.request(
                port: fixture.port,
                path: "/api/v1/console/send",
                method: "POST",
                headers: json,
                body: payload
            )
            #expect(large.status == 413)
            #expect(large.object?["error"] as? String == "the request body is over 64 bytes")
            let small = try await InspectionHTTP.request(port: fixture.port, path: "/api/v1/devices", method: "POST", headers: json, body: "{}")
            #expect(small.status == 405)
        }
    }

    @Test("A connection that sends no request is closed after the HTTP idle time")
    func silentConnectionClosed() async throws {
        var configuration = WebConfiguration()
        configuration.httpIdleTimeout = .milliseconds(200)
        try await LinkServerFixture.with(configuration: configuration) { fixture in
            let channel = try await ClientBootstrap(group: fixture.clientGroup).connect(host: "127.0.0.1", port: fixture.port).get()
            let start = ContinuousClock.now
            // The test's own limit, far above the server's: a server that never closes fails the expectation below.
            let giveUp = channel.eventLoop.scheduleTask(in: .seconds(10)) { channel.close(promise: nil) }
            try await channel.closeFuture.get()
            giveUp.cancel()
            #expect(ContinuousClock.now - start < .seconds(5))
        }
    }

    @Test("A request head over the decoder's limit (80 KiB of header fields) is 400")
    func headerTooLarge() async throws {
        try await LinkServerFixture.with(inspection: true) { fixture in
            let large = ["x-large": String(repeating: "a", count: 100 * 1024)]
            let answer = try await InspectionHTTP.request(port: fixture.port, path: "/api/v1/devices", headers: large)
            #expect(answer.status == 400)
        }
    }

    @Test("HEAD answers a GET route's status and headers without the body")
    func head() async throws {
        try await LinkServerFixture.with(inspection: true) { fixture in
            let head = try await InspectionHTTP.request(port: fixture.port, path: "/api/v1/devices", method: "HEAD")
            #expect(head.status == 200)
            #expect(head.contentType == "application/json")
            #expect(head.body.isEmpty)
        }
    }
}
