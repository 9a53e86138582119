import HTTPTypes
import HeraldCore
import Hummingbird
import Synchronization

/// An HTTP response from a route handler of the web port (``WebRoutes``).
public struct WebResponse: Sendable, Hashable {
    /// The status code.
    public var status: Int
    /// Header fields; `content-length` is added by the server.
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

extension WebResponse {
    /// The response as the router sends it; `content-length` comes from the body.
    var hummingbirdResponse: Response {
        var fields = HTTPFields()
        for (name, value) in headers.sorted(by: { $0.key < $1.key }) {
            guard let fieldName = HTTPField.Name(name) else { continue }
            fields.append(HTTPField(name: fieldName, value: value))
        }
        var buffer = ByteBuffer()
        buffer.writeBytes(body)
        return Response(status: HTTPResponse.Status(code: status), headers: fields, body: ResponseBody(byteBuffer: buffer))
    }
}

extension WebResponse {
    /// A response the router answered, with its body read (``WebRouter/respond(to:)``).
    init(_ response: Response) async throws {
        var headers: [String: String] = [:]
        for field in response.headers { headers[field.name.canonicalName] = field.value }
        let collector = BodyCollector()
        try await response.body.write(collector)
        self.init(status: response.status.code, headers: headers, body: collector.bytes.withLock { $0 })
    }

    private final class BodyCollector: ResponseBodyWriter, Sendable {
        let bytes = Mutex<[UInt8]>([])

        func write(_ buffer: ByteBuffer) async throws {
            bytes.withLock { $0.append(contentsOf: buffer.readableBytesView) }
        }

        func finish(_ trailingHeaders: HTTPFields?) async throws {}
    }
}
