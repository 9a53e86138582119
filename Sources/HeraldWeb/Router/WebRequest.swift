import Hummingbird

/// An HTTP request on the web port as a route handler sees it: its body read in full (up to
/// ``WebConfiguration/maximumRequestBodySize``) and its path's `{name}` captures in ``parameters``.
public struct WebRequest: Sendable {
    /// The method, e.g. `GET`.
    public var method: String
    /// The target as sent: the path and the query.
    public var target: String
    /// The path as sent, without the query, e.g. `/api/v1/devices`.
    public var path: String
    /// The query's parameters in order, percent-decoded (`+` reads as a space).
    public var query: [(name: String, value: String)]
    /// The header fields in order.
    public var headers: [(name: String, value: String)]
    /// The body.
    public var body: [UInt8]
    /// The route's path parameters (Hummingbird's), percent-decoded: for the route `/api/v1/devices/{id}`, `["id": …]`.
    public var parameters: [String: String] = [:]

    /// Creates a request from its target (path and query, as on the request line).
    public init(method: String, target: String, headers: [(name: String, value: String)] = [], body: [UInt8] = []) {
        self.method = method
        self.target = target
        let parts = target.split(separator: "?", maxSplits: 1, omittingEmptySubsequences: false)
        self.path = String(parts.first ?? "")
        self.query = parts.count > 1 ? Self.parseQuery(parts[1]) : []
        self.headers = headers
        self.body = body
    }

    /// A request the router received: its head, with `Host` (which HTTP types keep as the authority) back among the
    /// header fields, and its body.
    init(_ request: Request, body: [UInt8]) {
        var headers = request.headers.map { (name: $0.name.canonicalName, value: $0.value) }
        if let authority = request.head.authority { headers.insert((name: "host", value: authority), at: 0) }
        self.init(method: request.method.rawValue, target: request.head.path ?? "/", headers: headers, body: body)
    }

    /// The capture `name` of the route's path (empty when the route has none of that name).
    public func parameter(_ name: String) -> String {
        parameters[name] ?? ""
    }

    /// The first query parameter with this name.
    public func queryValue(_ name: String) -> String? {
        query.first { $0.name == name }?.value
    }

    private static func parseQuery(_ query: Substring) -> [(name: String, value: String)] {
        query.split(separator: "&").map { pair in
            let parts = pair.split(separator: "=", maxSplits: 1, omittingEmptySubsequences: false)
            let name = percentDecoded(parts[0], plusIsSpace: true)
            let value = parts.count > 1 ? percentDecoded(parts[1], plusIsSpace: true) : ""
            return (name: name, value: value)
        }
    }

    /// Decodes `%XX` escapes; an invalid escape is kept as written.
    static func percentDecoded(_ text: Substring, plusIsSpace: Bool) -> String {
        let utf8 = Array(text.utf8)
        var output: [UInt8] = []
        output.reserveCapacity(utf8.count)
        var index = 0
        while index < utf8.count {
            let byte = utf8[index]
            if byte == UInt8(ascii: "%"), index + 2 < utf8.count, let high = hexValue(utf8[index + 1]), let low = hexValue(utf8[index + 2]) {
                output.append(high << 4 | low)
                index += 3
            } else {
                output.append(plusIsSpace && byte == UInt8(ascii: "+") ? UInt8(ascii: " ") : byte)
                index += 1
            }
        }
        return String(decoding: output, as: UTF8.self)
    }

    private static func hexValue(_ byte: UInt8) -> UInt8? {
        switch byte {
        case UInt8(ascii: "0")...UInt8(ascii: "9"): byte - UInt8(ascii: "0")
        case UInt8(ascii: "a")...UInt8(ascii: "f"): byte - UInt8(ascii: "a") + 10
        case UInt8(ascii: "A")...UInt8(ascii: "F"): byte - UInt8(ascii: "A") + 10
        default: nil
        }
    }
}
