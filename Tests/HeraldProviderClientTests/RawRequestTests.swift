import HeraldTestTiers
import NIOHPACK
import Testing

@testable import HeraldProviderClient

@Suite("APNSProviderClient: a raw request's header block (a web push on the provider connection)", .tier(.unit))
struct RawRequestTests {
    private func client(_ url: String) throws -> APNSProviderClient {
        try APNSProviderClient(configuration: .init(endpoint: try #require(.init(url: url)), authentication: .none))
    }

    @Test("pseudo-headers from the client's endpoint, then the request's fields in order, nothing added")
    func headerBlock() throws {
        let request = ProviderRawRequest(
            path: "/push/" + String(repeating: "ab", count: 32),
            fields: [.init("ttl", "60"), .init("content-encoding", "aes128gcm"), .init("authorization", "vapid t=x, k=y")],
            body: [1, 2, 3]
        )
        let headers = try client("http://127.0.0.1:2195").headers(for: request, authorization: nil)
        #expect(
            headers.map { "\($0.name): \($0.value)" } == [
                ":method: POST", ":scheme: http", ":path: /push/" + String(repeating: "ab", count: 32), ":authority: 127.0.0.1:2195",
                "ttl: 60", "content-encoding: aes128gcm", "authorization: vapid t=x, k=y",
            ]
        )
    }

    @Test("the provider token goes in only when the request carries no authorization of its own")
    func providerToken() throws {
        let client = try client("http://127.0.0.1:2195")
        let own = ProviderRawRequest(path: "/push/ab", fields: [.init("authorization", "vapid t=x, k=y")])
        #expect(try client.headers(for: own, authorization: "bearer jwt")["authorization"] == ["vapid t=x, k=y"])
        let none = ProviderRawRequest(method: "GET", path: "/1/apps/com.example.app/all-channels")
        #expect(try client.headers(for: none, authorization: "bearer jwt")["authorization"] == ["bearer jwt"])
    }

    @Test(
        "a method, path or field HTTP/2 cannot carry is refused before sending",
        arguments: [
            ProviderRawRequest(method: "PO ST", path: "/push/ab"),
            ProviderRawRequest(path: "push/ab"),
            ProviderRawRequest(path: "/push/a b"),
            ProviderRawRequest(path: "/push/ab", fields: [.init("TTL", "60")]),
            ProviderRawRequest(path: "/push/ab", fields: [.init(":path", "/x")]),
            ProviderRawRequest(path: "/push/ab", fields: [.init("ttl", "60\r\nx: y")]),
        ]
    )
    func invalidRequests(request: ProviderRawRequest) throws {
        let client = try client("http://127.0.0.1:2195")
        #expect(throws: APNSProviderClientError.invalidRequest) { try client.headers(for: request, authorization: nil) }
    }
}
