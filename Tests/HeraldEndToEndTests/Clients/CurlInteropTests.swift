import Foundation
import HeraldCore
import HeraldTestSupport
import HeraldTestTiers
import Testing

/// How curl reaches the gateway.
enum CurlTransport: String, CaseIterable, Sendable, CustomTestStringConvertible {
    /// HTTP/2 over TLS on the TLS port, trusting the fixture's CA.
    case tls
    /// HTTP/2 with prior knowledge on the cleartext port.
    case h2c
    /// HTTP/1.1 on the cleartext port.
    case http1

    var testDescription: String {
        switch self {
        case .tls: "HTTP/2 over TLS"
        case .h2c: "h2c"
        case .http1: "HTTP/1.1"
        }
    }

    /// The protocol curl reports in its status line.
    var expectedVersion: String { self == .http1 ? "HTTP/1.1" : "HTTP/2" }

    /// Sends `POST /3/device/<token>` with curl and parses its `-i` output.
    func send(
        to fixture: GatewayFixture,
        token: String,
        headers: [(String, String)]? = nil,
        body: [UInt8] = GatewayFixture.alertBody
    ) async throws -> CurlAnswer {
        let port = try await fixture.port(tls: self == .tls)
        var arguments = ["--silent", "--show-error", "--include", "--max-time", "20"]
        let url: String
        switch self {
        case .tls:
            // The server certificate names localhost; pin it to the IPv4 listener.
            arguments += ["--http2", "--cacert", fixture.pki.files.caCertificate.path, "--resolve", "localhost:\(port):127.0.0.1"]
            url = "https://localhost:\(port)/3/device/\(token)"
        case .h2c:
            arguments += ["--http2-prior-knowledge"]
            url = "http://127.0.0.1:\(port)/3/device/\(token)"
        case .http1:
            arguments += ["--http1.1"]
            url = "http://127.0.0.1:\(port)/3/device/\(token)"
        }
        for (name, value) in headers ?? fixture.alertHeaders() {
            arguments += ["--header", "\(name): \(value)"]
        }
        arguments += ["--data-binary", String(decoding: body, as: UTF8.self), url]
        let result = try await ExternalProcess.run("curl", arguments)
        guard result.succeeded else { throw InteropError("curl failed: \(result)") }
        return try CurlAnswer(parsing: result.stdout)
    }
}

/// Tier 3 interop: curl, a client nobody here wrote, against a live gateway over each wire it speaks.
@Suite("Interop: curl against a live gateway", .serialized, .tier(.process))
struct CurlInteropTests {
    @Test("a valid alert gets 200, an apns-id and no body, and is stored", arguments: CurlTransport.allCases)
    func accepted(transport: CurlTransport) async throws {
        try await withGateway { fixture in
            let token = try await fixture.registerToken()
            let answer = try await transport.send(to: fixture, token: token.hex)
            #expect(answer.version == transport.expectedVersion, "\(answer)")
            #expect(answer.status == 200, "\(answer)")
            #expect(isUUID(answer.headers["apns-id"]), "\(answer)")
            #expect(answer.body.isEmpty, "\(answer)")
            let stored = try await fixture.store.listNotifications(token: token, limit: 10)
            #expect(stored.count == 1)
            #expect(stored.first?.notification.id.text == answer.headers["apns-id"])
            #expect(stored.first?.notification.payload == GatewayFixture.alertBody)
        }
    }

    @Test("an unknown token gets 400 BadDeviceToken", arguments: CurlTransport.allCases)
    func unknownToken(transport: CurlTransport) async throws {
        try await withGateway { fixture in
            let answer = try await transport.send(to: fixture, token: unknownDeviceToken)
            #expect(answer.version == transport.expectedVersion, "\(answer)")
            #expect(answer.status == 400, "\(answer)")
            #expect(answer.headers["content-type"]?.hasPrefix("application/json") == true, "\(answer)")
            #expect(answer.body == #"{"reason":"BadDeviceToken"}"#, "\(answer)")
            #expect(isUUID(answer.headers["apns-id"]), "\(answer)")
        }
    }

    @Test("an unregistered token gets 410 Unregistered with the unregistration time", arguments: CurlTransport.allCases)
    func unregisteredToken(transport: CurlTransport) async throws {
        try await withGateway { fixture in
            let token = try await fixture.registerToken()
            // Registered at T, unregistered at T + 1.5 s, pushed at T + 60 s: the timestamp can only be the second.
            let unregisteredAt = fixture.clock.nowMilliseconds() + 1_500
            try await fixture.store.unregister(token, atMilliseconds: unregisteredAt)
            fixture.clock.advance(seconds: 60)
            let answer = try await transport.send(to: fixture, token: token.hex)
            #expect(answer.version == transport.expectedVersion, "\(answer)")
            #expect(answer.status == 410, "\(answer)")
            #expect(answer.reason == "Unregistered", "\(answer)")
            #expect(answer.timestamp == unregisteredAt, "\(answer)")
            #expect(isUUID(answer.headers["apns-id"]), "\(answer)")
            let stored = try await fixture.store.listNotifications(token: token, limit: 10)
            #expect(stored.isEmpty)
        }
    }
}
