import Hummingbird

/// The web port's one error: a status and a message, answered as `{"error":"<message>"}` (docs/inspection-api.json).
///
/// Route handlers throw it; the router turns it into the response, and every error of the framework (an unknown
/// path, a body over the limit) is answered in the same shape (``WebErrorMiddleware``).
public struct WebError: Error, Sendable, HTTPResponseError {
    /// The status code.
    public var statusCode: Int
    /// What went wrong, for the client.
    public var message: String
    /// Header fields of the answer besides `content-type`, e.g. `allow` with `405`.
    public var headers: [String: String]

    /// An error with its status, e.g. `WebError(status: 409, message: "device d1 is offline")`.
    public init(status: Int, message: String, headers: [String: String] = [:]) {
        self.statusCode = status
        self.message = message
        self.headers = headers
    }

    /// `400 Bad Request`.
    public static func badRequest(_ message: String) -> WebError { WebError(status: 400, message: message) }
    /// `404 Not Found`.
    public static func notFound(_ message: String) -> WebError { WebError(status: 404, message: message) }

    /// The answer: the JSON error with ``headers``.
    public var response: WebResponse {
        var response = WebResponse.error(status: statusCode, message)
        response.headers.merge(headers) { _, new in new }
        return response
    }

    public var status: HTTPResponse.Status { HTTPResponse.Status(code: statusCode) }

    public func response(from request: Request, context: some RequestContext) throws -> Response {
        response.hummingbirdResponse
    }
}
