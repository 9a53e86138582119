import HeraldTestTiers
import Testing

@testable import HeraldDelivery
@testable import HeraldWeb

@Suite("Web port access: Origin, Content-Type, Host and the API token", .tier(.unit))
struct WebAccessPolicyTests {
    static let host = ("host", "127.0.0.1:2196")

    static func request(
        _ method: String,
        _ target: String,
        _ headers: [(String, String)] = [host],
        body: String = ""
    ) -> WebRequest {
        WebRequest(method: method, target: target, headers: headers.map { (name: $0.0, value: $0.1) }, body: Array(body.utf8))
    }

    @Test("The console's own requests pass: same origin, JSON, loopback host")
    func consoleRequestsPass() {
        let policy = WebAccessPolicy()
        let post = Self.request(
            "POST",
            "/api/v1/console/push",
            [Self.host, ("origin", "http://127.0.0.1:2196"), ("content-type", "application/json; charset=utf-8"), ("sec-fetch-site", "same-origin")],
            body: #"{"a":1}"#
        )
        #expect(policy.refusal(of: post) == nil)
        #expect(policy.refusal(of: Self.request("GET", "/api/v1/devices")) == nil)
        // curl and the testing kit send no Origin.
        #expect(policy.refusal(of: Self.request("POST", "/api/v1/x", [Self.host, ("content-type", "application/json")], body: "{}")) == nil)
        #expect(policy.refusal(of: Self.request("DELETE", "/api/v1/x")) == nil)
    }

    @Test("A state-changing request from another origin is refused with 403; a GET is not state-changing")
    func crossOrigin() {
        let policy = WebAccessPolicy()
        let evil = Self.request(
            "POST",
            "/api/v1/console/push",
            [Self.host, ("origin", "http://evil.example"), ("content-type", "application/json")],
            body: "{}"
        )
        #expect(policy.refusal(of: evil)?.status == 403)
        let delete = Self.request("DELETE", "/api/v1/devices/x", [Self.host, ("origin", "http://127.0.0.1:9999")])
        #expect(policy.refusal(of: delete)?.status == 403)
        let site = Self.request("POST", "/api/v1/x", [Self.host, ("sec-fetch-site", "cross-site"), ("content-type", "application/json")], body: "{}")
        #expect(policy.refusal(of: site)?.status == 403)
        #expect(policy.refusal(of: Self.request("GET", "/api/v1/devices", [Self.host, ("origin", "http://evil.example")])) == nil)
    }

    @Test("A body that is not JSON is refused with 415 (a cross-site form cannot send JSON without a preflight)")
    func nonJSONBody() {
        let policy = WebAccessPolicy()
        for contentType in ["text/plain", "application/x-www-form-urlencoded", "multipart/form-data; boundary=x"] {
            let request = Self.request("POST", "/api/v1/console/push", [Self.host, ("content-type", contentType)], body: "{}")
            #expect(policy.refusal(of: request)?.status == 415, "\(contentType)")
        }
        #expect(policy.refusal(of: Self.request("POST", "/api/v1/console/push", [Self.host], body: "{}"))?.status == 415)
    }

    @Test("A loopback server answers loopback Host names only (DNS rebinding); a server on another address any")
    func hostNames() {
        let policy = WebAccessPolicy()
        for host in ["127.0.0.1:2196", "localhost", "LOCALHOST:80", "[::1]:2196", "127.1.2.3", "app.localhost:1"] {
            #expect(policy.refusal(of: Self.request("GET", "/api/v1/devices", [("host", host)])) == nil, "\(host)")
        }
        for host in ["evil.example:2196", "127.0.0.1.evil.example", "[::2]:1", "128.0.0.1", "localhost:x"] {
            #expect(policy.refusal(of: Self.request("GET", "/", [("host", host)]))?.status == 403, "\(host)")
        }
        let open = WebAccessPolicy(apiToken: "0123456789abcdef", loopbackOnly: false)
        #expect(open.refusal(of: Self.request("GET", "/", [("host", "herald.internal:2196")])) == nil)
    }

    @Test("With a token, /api/ and /metrics need it as a bearer token or the console's cookie; the page does not")
    func apiToken() {
        let token = "s3cret-token-0123456789"
        let policy = WebAccessPolicy(apiToken: token)
        let bare = policy.refusal(of: Self.request("GET", "/api/v1/devices"))
        #expect(bare?.status == 401)
        #expect(bare?.headers["www-authenticate"]?.hasPrefix("Bearer") == true)
        #expect(policy.refusal(of: Self.request("GET", "/metrics"))?.status == 401)
        #expect(policy.refusal(of: Self.request("GET", "/api/v1/devices", [Self.host, ("authorization", "Bearer \(token)")])) == nil)
        #expect(policy.refusal(of: Self.request("GET", "/api/v1/devices", [Self.host, ("authorization", "bearer \(token)x")]))?.status == 401)
        #expect(policy.refusal(of: Self.request("GET", "/api/v1/devices", [Self.host, ("cookie", "a=b; herald_api_token=\(token)")])) == nil)
        #expect(policy.refusal(of: Self.request("GET", "/api/v1/devices", [Self.host, ("cookie", "herald_api_token=wrong")]))?.status == 401)
        #expect(policy.refusal(of: Self.request("GET", "/")) == nil)
    }

    @Test("GET /?token= sets the console's cookie and redirects without the token; a wrong one is 401")
    func consoleLogin() {
        let token = "s3cret-token-0123456789"
        let policy = WebAccessPolicy(apiToken: token)
        let login = policy.consoleLogin(Self.request("GET", "/?token=\(token)"))
        #expect(login?.status == 303)
        #expect(login?.headers["location"] == "/")
        #expect(login?.headers["set-cookie"] == "herald_api_token=\(token); Path=/; HttpOnly; SameSite=Strict")
        #expect(policy.consoleLogin(Self.request("GET", "/?token=nope"))?.status == 401)
        #expect(policy.consoleLogin(Self.request("GET", "/")) == nil)
        #expect(WebAccessPolicy().consoleLogin(Self.request("GET", "/?token=\(token)")) == nil)
    }

    @Test("A device link from a browser page of another origin is refused; devices send no Origin")
    func deviceLinkOrigin() {
        let policy = WebAccessPolicy()
        #expect(policy.refusal(of: Self.request("GET", "/device-link", [Self.host, ("origin", "http://evil.example")]))?.status == 403)
        #expect(policy.refusal(of: Self.request("GET", "/device-link")) == nil)
    }

    @Test("Tokens that cannot travel in a cookie or header unchanged are invalid")
    func tokenValidity() {
        #expect(WebAccessPolicy.isValidToken("0123456789abcdef"))
        #expect(!WebAccessPolicy.isValidToken("short"))
        #expect(!WebAccessPolicy.isValidToken("0123456789abcdef;x"))
        #expect(!WebAccessPolicy.isValidToken("0123456789 abcdef"))
        #expect(!WebAccessPolicy.isValidToken(String(repeating: "a", count: 257)))
    }
}
