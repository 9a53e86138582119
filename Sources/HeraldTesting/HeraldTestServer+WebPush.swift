import AsyncHTTPClient
import Foundation
import HeraldCore
import HeraldWebPush

/// The push service's answer to a web push (docs/web-push.md, "The answers").
public struct WebPushResponse: Sendable, Hashable {
    /// The HTTP status: `201` when the message was stored.
    public var status: Int
    /// The JSON body's `reason` on a refusal (`BadJwtToken`, `Unregistered`, …).
    public var reason: String?
    /// Herald's id of the message (`apns-id`): its trace, its state and its device's reports are found by it.
    public var apnsID: String?
    /// `Location`, the message's URL, on `201` (RFC 8030 §5).
    public var location: String?
    /// `TTL`, the seconds the push service keeps the message, on `201` (RFC 8030 §5.2).
    public var ttl: Int64?
    /// Herald's one-line explanation of a refusal (`herald-explanation`), which Apple does not send.
    public var explanation: String?

    /// A response (for tests of code that reads one).
    public init(
        status: Int,
        reason: String? = nil,
        apnsID: String? = nil,
        location: String? = nil,
        ttl: Int64? = nil,
        explanation: String? = nil
    ) {
        self.status = status
        self.reason = reason
        self.apnsID = apnsID
        self.location = location
        self.ttl = ttl
        self.explanation = explanation
    }
}

extension HeraldTestServer {
    /// Sends a web push as a site's server does — `payload` encrypted for the web app's keys (RFC 8291 `aes128gcm`),
    /// VAPID signed by `site` for the endpoint's origin (RFC 8292) — to the web app's endpoint, over HTTP/2 with TLS
    /// (trusting the test server's CA) or HTTP/1.1 in cleartext as the endpoint says, and returns the answer, whatever
    /// its status.
    ///
    /// VAPID's `exp` is signed on the server's clock, so a push after ``HeraldTestClock/advance(by:)`` is not refused as
    /// expired.
    ///
    /// - Parameters:
    ///   - payload: the plaintext: a declarative message (`{"web_push":8030,…}`) or what the site's `sw.js` reads.
    ///   - ttl: the `TTL` header, in seconds: 3600 by default (pywebpush's default, 0, is "now or never"); `nil`
    ///     sends none.
    ///   - topic: the `Topic` header: a newer message with the same topic replaces one not yet delivered.
    ///   - endpoint: where to post, if not the web app's endpoint.
    /// - Throws: ``HeraldExpectationFailure`` when the payload cannot be encrypted or signed; the HTTP client's error
    ///   when the server does not answer.
    @discardableResult
    public func sendWebPush(
        _ payload: String,
        to app: TestWebApp,
        from site: WebPushSite,
        ttl: Int64? = 3600,
        urgency: WebPushUrgency? = nil,
        topic: String? = nil,
        endpoint: String? = nil
    ) async throws -> WebPushResponse {
        let endpoint = endpoint ?? app.endpoint
        let body: [UInt8]
        let authorization: String
        do {
            body = try WebPushEncryption.encrypt(Array(payload.utf8), p256dh: app.keys.p256dh, auth: app.keys.auth)
            authorization = try site.vapid.authorization(endpoint: endpoint, nowSeconds: clock.nowMilliseconds() / 1000)
        } catch {
            throw HeraldExpectationFailure("a web push to \(endpoint) could not be made: \(error)")
        }
        var request = HTTPClientRequest(url: endpoint)
        request.method = .POST
        request.headers.add(name: "authorization", value: authorization)
        request.headers.add(name: "content-encoding", value: "aes128gcm")
        if let ttl { request.headers.add(name: "ttl", value: String(ttl)) }
        if let urgency { request.headers.add(name: "urgency", value: urgency.rawValue) }
        if let topic { request.headers.add(name: "topic", value: topic) }
        request.body = .bytes(body)

        var configuration = HTTPClient.Configuration()
        configuration.connectionPool.retryConnectionEstablishment = false
        configuration.tlsConfiguration = .makeClientConfiguration()
        configuration.tlsConfiguration?.trustRoots = .file(credentials.caCertificateFile.path)
        let client = HTTPClient(eventLoopGroupProvider: .singleton, configuration: configuration)
        let result: Result<WebPushResponse, any Error>
        do {
            let response = try await client.execute(request, timeout: .seconds(15))
            // An answer's body is Apple's `{"reason": …}` or nothing.
            let answer = try await response.body.collect(upTo: 64 * 1024)
            let reason = (try? JSONParser.parse(Array(answer.readableBytesView)))?.objectValue?["reason"]?.stringValue
            result = .success(
                WebPushResponse(
                    status: Int(response.status.code),
                    reason: reason,
                    apnsID: response.headers.first(name: "apns-id"),
                    location: response.headers.first(name: "location"),
                    ttl: response.headers.first(name: "ttl").flatMap { Int64($0) },
                    explanation: response.headers.first(name: "herald-explanation")
                )
            )
        } catch {
            result = .failure(error)
        }
        try? await client.shutdown()
        return try result.get()
    }
}
