import HeraldAuth
import HeraldCore
import HeraldTestTiers
import NIOHPACK
import Testing

@testable import HeraldProviderClient

@Suite("APNSProviderClient: the request's header block", .tier(.unit))
struct EncodingTests {
    private func client(_ url: String, authentication: APNSProviderClient.Authentication = .none) throws -> APNSProviderClient {
        try APNSProviderClient(configuration: .init(endpoint: try #require(.init(url: url)), authentication: authentication))
    }

    @Test("pseudo-headers, then authorization, then only the apns-* headers that are set")
    func headerBlock() throws {
        let request = APNSRequest(
            deviceToken: "abcd",
            payload: Array("{}".utf8),
            topic: "com.example.app",
            pushType: .background,
            priority: .powerConsiderate,
            expiration: 0,
            collapseID: "c",
            apnsID: "123e4567-e89b-12d3-a456-426614174000"
        )
        let headers = try client("http://127.0.0.1:2195").headers(for: request, authorization: "bearer x")
        let fields = headers.map { "\($0.name): \($0.value)" }
        #expect(
            fields == [
                ":method: POST", ":scheme: http", ":path: /3/device/abcd", ":authority: 127.0.0.1:2195", "authorization: bearer x",
                "apns-topic: com.example.app", "apns-push-type: background", "apns-priority: 5", "apns-expiration: 0",
                "apns-collapse-id: c", "apns-id: 123e4567-e89b-12d3-a456-426614174000",
            ]
        )
        let minimal = try client("https://api.push.apple.com").headers(for: APNSRequest(deviceToken: "ab", payload: []), authorization: nil)
        #expect(minimal.map(\.name) == [":method", ":scheme", ":path", ":authority"])
        #expect(minimal.first(name: ":authority") == "api.push.apple.com")
    }

    @Test("a token that cannot be a path segment, or a value with CR or LF, is refused before sending")
    func invalidRequests() throws {
        let client = try client("https://localhost:2197")
        #expect(throws: APNSProviderClientError.invalidRequest) {
            try client.headers(for: APNSRequest(deviceToken: "ab/cd", payload: []), authorization: nil)
        }
        #expect(throws: APNSProviderClientError.invalidRequest) {
            try client.headers(for: APNSRequest(deviceToken: "abcd", payload: [], topic: "a\r\nb"), authorization: nil)
        }
    }

    @Test("configurations the client cannot use are refused when it is made")
    func invalidConfigurations() throws {
        let key = try PrivateSigningKey.generate(teamID: "TEAM123456")
        let certificate = APNSProviderClient.ClientCertificate(certificateChainPEM: "x", privateKeyPEM: "y")
        #expect(throws: APNSProviderClientError.invalidConfiguration) {
            try client("http://127.0.0.1:2195", authentication: .certificate(certificate))
        }
        #expect(throws: APNSProviderClientError.invalidConfiguration) {
            try client("https://localhost:2197", authentication: .certificate(certificate))
        }
        var configuration = APNSProviderClient.Configuration(endpoint: .appleSandbox, authentication: .token(key))
        configuration.tokenRefreshInterval = .seconds(10 * 60)
        #expect(throws: APNSProviderClientError.invalidConfiguration) { try APNSProviderClient(configuration: configuration) }
        configuration.tokenRefreshInterval = .seconds(50 * 60)
        configuration.trustRootFiles = ["/nonexistent/ca.pem"]
        #expect(throws: APNSProviderClientError.invalidConfiguration) { try APNSProviderClient(configuration: configuration) }
    }
}
