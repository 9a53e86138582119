import HeraldProviderClient
import HeraldTestTiers
import Testing

@Suite("APNSProviderClient.Endpoint: server URLs", .tier(.unit))
struct EndpointTests {
    typealias Endpoint = APNSProviderClient.Endpoint

    @Test(
        "https is TLS and http is h2c, with the scheme's port by default",
        arguments: [
            ("https://localhost:2197", Endpoint(host: "localhost", port: 2197, usesTLS: true)),
            ("http://127.0.0.1:2195/", Endpoint(host: "127.0.0.1", port: 2195, usesTLS: false)),
            ("https://api.push.apple.com", Endpoint(host: "api.push.apple.com", port: 443, usesTLS: true)),
            ("HTTP://example.com", Endpoint(host: "example.com", port: 80, usesTLS: false)),
            ("https://[::1]:2197", Endpoint(host: "::1", port: 2197, usesTLS: true)),
        ]
    )
    func parses(url: String, expected: Endpoint) {
        #expect(Endpoint(url: url) == expected)
    }

    @Test(
        "anything else is refused",
        arguments: ["localhost:2197", "ftp://host", "https://", "https://host:0", "https://host:70000", "https://host/3/device", "https://[::1"]
    )
    func refuses(url: String) {
        #expect(Endpoint(url: url) == nil)
    }

    @Test("the description is a URL again")
    func description() {
        #expect(Endpoint(host: "::1", port: 2197, usesTLS: true).description == "https://[::1]:2197")
        #expect(Endpoint.appleSandbox.description == "https://api.sandbox.push.apple.com:443")
    }
}
