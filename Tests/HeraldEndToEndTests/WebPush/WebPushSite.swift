import Crypto
import Foundation
import HeraldCore
import HeraldTestSupport
import HeraldWebPush

/// One web app's subscription and the site that pushes to it, for the pywebpush interop tests.
///
/// The browser's side: ``keys`` (`p256dh`, `auth`) and the VAPID key the subscription was made with
/// (``applicationServerKey``). The site's side: the VAPID private key in a PEM file, as pywebpush reads it. The push
/// service's side: a ``CapturingHTTPServer`` at `/push/<id>` that answers with Herald's request rules, as the push service
/// will (`201 Created` with a `Location`, or the refusal's status and `{"reason":…}`).
final class WebPushSite: Sendable {
    /// The wall clock in seconds, as the push service reads VAPID's `exp`.
    static var now: Int64 { Int64(Date().timeIntervalSince1970) }

    let keys = WebPushSubscriptionKeys()
    let vapidKey = P256.Signing.PrivateKey()
    let applicationServerKey: VAPIDPublicKey
    let directory: URL
    let vapidKeyFile: URL
    let endpoint: CapturingHTTPServer
    let endpointPath = "/push/" + UUID().uuidString.lowercased()

    init() throws {
        guard let key = VAPIDPublicKey(rawRepresentation: vapidKey.publicKey.x963Representation) else {
            throw InteropError("swift-crypto's P-256 public key is not a VAPID key")
        }
        applicationServerKey = key
        directory = FileManager.default.temporaryDirectory.appendingPathComponent("herald-pywebpush-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        vapidKeyFile = directory.appendingPathComponent("vapid.pem")
        try vapidKey.pemRepresentation.write(to: vapidKeyFile, atomically: true, encoding: .utf8)
        let subscription = WebPushRequest.Subscription(applicationServerKey: key)
        endpoint = try CapturingHTTPServer { request, origin in
            let decision = WebPushRequest(headers: request.headers, bodyLength: request.body.count, origin: origin)
                .evaluate(subscription: subscription, policy: WebPushPolicy(), nowSeconds: Self.now)
            switch decision {
            case .success:
                return .init(status: 201, headers: [("Location", "\(origin)/message/\(UUID().uuidString.lowercased())")])
            case .failure(let refusal):
                return .init(
                    status: refusal.status,
                    headers: [("Content-Type", "application/json")],
                    body: #"{"reason":\#(JSONString.quoted(refusal.reason.rawValue))}"#
                )
            }
        }
    }

    /// Stops the endpoint and removes the key files.
    func remove() {
        endpoint.stop()
        try? FileManager.default.removeItem(at: directory)
    }

    /// The subscription's `toJSON()`, what the page sends to the site's server.
    var subscriptionJSON: String {
        let endpointURL = JSONString.quoted(endpoint.origin + endpointPath)
        return #"{"endpoint":\#(endpointURL),"expirationTime":null,"keys":{"p256dh":"\#(keys.p256dh)","auth":"\#(keys.auth)"}}"#
    }

    /// Sends one push through pywebpush and returns what it was answered.
    ///
    /// - Parameters:
    ///   - data: `["--data", text]` or `["--data-length", n]`.
    ///   - headers: extra headers, `Name: Value`.
    ///   - vapidKey: the PEM file to sign with; the subscription's own key when `nil`.
    func send(subject: String, data: [String], ttl: Int, headers: [String] = [], vapidKey: URL? = nil) async throws -> PyWebPushAnswer {
        var arguments = ["--subscription", subscriptionJSON, "--vapid-key", (vapidKey ?? vapidKeyFile).path, "--sub", subject]
        arguments += data + ["--ttl", String(ttl)]
        for header in headers { arguments += ["--header", header] }
        return try await Interop.pywebpush(arguments).answer
    }

    /// The one request the endpoint received.
    func onlyRequest() throws -> CapturingHTTPServer.Request {
        let requests = endpoint.requests
        guard requests.count == 1, let request = requests.first else {
            throw InteropError("the endpoint received \(requests.count) requests, not 1")
        }
        return request
    }

    /// The request rules' decision on a captured request, for this subscription.
    func evaluate(_ request: CapturingHTTPServer.Request) -> Result<WebPushRequest.Accepted, WebPushRefusal> {
        WebPushRequest(headers: request.headers, bodyLength: request.body.count, origin: endpoint.origin)
            .evaluate(subscription: .init(applicationServerKey: applicationServerKey), policy: WebPushPolicy(), nowSeconds: Self.now)
    }

    /// The refusal of a captured request, `nil` when the rules accept it.
    func refusal(_ request: CapturingHTTPServer.Request) -> WebPushRefusal? {
        guard case .failure(let refusal) = evaluate(request) else { return nil }
        return refusal
    }
}

/// `pywebpush_client.py`'s output: what the endpoint answered pywebpush.
struct PyWebPushAnswer: Decodable, Sendable, CustomStringConvertible {
    var status: Int
    var body: String
    var location: String?

    /// The `reason` of a JSON error body.
    var reason: String? {
        guard case .object(let members)? = try? JSONParser.parse(Array(body.utf8)), case .string(let reason)? = members["reason"] else {
            return nil
        }
        return reason
    }

    var description: String { "\(status) \(body)\(location.map { " Location: \($0)" } ?? "")" }
}
