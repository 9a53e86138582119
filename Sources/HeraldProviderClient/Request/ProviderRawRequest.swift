/// Any request on the provider connection, sent as given: a method, a path, header fields in order and a body — for
/// what the typed requests do not cover, such as a web push to a subscription's endpoint (`POST /push/<id>`,
/// docs/web-push.md) on the same HTTP/2 connection as the APNs pushes.
///
/// The client adds the pseudo-headers (`:scheme` and `:authority` from its endpoint) and, with token authentication,
/// `authorization: bearer <JWT>` unless ``fields`` has an `authorization` of its own (a web push's VAPID header).
public struct ProviderRawRequest: Sendable, Hashable {
    /// `:method`, e.g. `POST`.
    public var method: String
    /// `:path`, e.g. `/push/<subscription id>`; it must start with `/`.
    public var path: String
    /// The header fields, in order, names in lower case as HTTP/2 requires (RFC 9113 §8.2.1).
    public var fields: [Field]
    /// The body; empty for none (the HEADERS frame then ends the stream).
    public var body: [UInt8]

    /// One header field.
    public struct Field: Sendable, Hashable {
        /// The name, in lower case.
        public var name: String
        /// The value.
        public var value: String

        /// A field `name: value`.
        public init(_ name: String, _ value: String) {
            self.name = name
            self.value = value
        }
    }

    /// Creates a request.
    public init(method: String = "POST", path: String, fields: [Field] = [], body: [UInt8] = []) {
        self.method = method
        self.path = path
        self.fields = fields
        self.body = body
    }
}
