import HeraldDeviceLink

/// An HTTP response from a ``WebResponder``.
public struct WebResponse: Sendable, Hashable {
    /// The status code.
    public var status: Int
    /// Header fields; `content-length` and `connection` are added by the server.
    public var headers: [String: String]
    /// The body.
    public var body: [UInt8]

    /// Creates a response.
    public init(status: Int, headers: [String: String] = [:], body: [UInt8] = []) {
        self.status = status
        self.headers = headers
        self.body = body
    }

    /// A JSON response: `body` must be the text of one JSON value.
    public static func json(status: Int = 200, _ body: [UInt8]) -> WebResponse {
        WebResponse(status: status, headers: ["content-type": "application/json"], body: body)
    }

    /// A JSON error: `{"error":"<message>"}`.
    public static func error(status: Int, _ message: String) -> WebResponse {
        var writer = JSONTextWriter()
        writer.beginObject()
        writer.member("error", message)
        writer.endObject()
        return .json(status: status, writer.bytes)
    }
}
