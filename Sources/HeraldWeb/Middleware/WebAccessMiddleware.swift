import Hummingbird
import NIOCore

/// Reads each request's body (up to the limit) and applies the ``WebAccessPolicy`` before any route runs: a refused
/// request gets the policy's error, `GET /?token=` the console's cookie, and `/device-link` without a WebSocket
/// upgrade `426`.
struct WebAccessMiddleware: RouterMiddleware {
    typealias Context = WebRequestContext

    let policy: WebAccessPolicy
    let maximumBodySize: Int

    func handle(_ request: Request, context: Context, next: (Request, Context) async throws -> Response) async throws -> Response {
        var request = request
        let body: ByteBuffer
        do {
            body = try await request.collectBody(upTo: maximumBodySize)
        } catch is NIOTooManyBytesError {
            throw WebError(status: 413, message: "the request body is over \(maximumBodySize) bytes", headers: ["connection": "close"])
        }
        let webRequest = WebRequest(request, body: Array(buffer: body))
        if let refusal = policy.refusal(of: webRequest) ?? policy.consoleLogin(webRequest) {
            return refusal.hummingbirdResponse
        }
        if webRequest.path == WebServer.linkPath {
            throw WebError(
                status: 426,
                message: "\(WebServer.linkPath) is a WebSocket: send an upgrade request",
                headers: ["upgrade": "websocket"]
            )
        }
        return try await next(request, context)
    }
}
