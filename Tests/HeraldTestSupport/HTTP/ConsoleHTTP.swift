import Foundation
import Testing

#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// HTTP/1.1 requests to a web port's JSON API (`herald serve`'s, or the testing kit's `inspectionURL`): each call
/// takes the API's base URL, ending in `/api/v1/`, and a path below it.
public enum ConsoleHTTP {
    /// An answer: its status and body, and the body as a JSON object when it is one.
    public struct Response: Sendable {
        public var status: Int
        public var body: Data
        public var object: [String: Any]? { (try? JSONSerialization.jsonObject(with: body)) as? [String: Any] }
    }

    public static func get(_ base: String, _ path: String) async throws -> Response {
        try await request(base, path, method: "GET", body: nil)
    }

    public static func post(_ base: String, _ path: String, _ body: [String: Any]) async throws -> Response {
        try await request(base, path, method: "POST", body: try JSONSerialization.data(withJSONObject: body))
    }

    public static func post(_ base: String, _ path: String, text: String) async throws -> Response {
        try await request(base, path, method: "POST", body: Data(text.utf8))
    }

    public static func delete(_ base: String, _ path: String) async throws -> Response {
        try await request(base, path, method: "DELETE", body: nil)
    }

    public static func request(_ base: String, _ path: String, method: String, body: Data?) async throws -> Response {
        let url = try #require(URL(string: base + path))
        var request = URLRequest(url: url, cachePolicy: .reloadIgnoringLocalCacheData, timeoutInterval: 15)
        request.httpMethod = method
        request.httpBody = body
        if body != nil { request.setValue("application/json", forHTTPHeaderField: "content-type") }
        let (data, response) = try await URLSession.shared.data(for: request)
        let http = try #require(response as? HTTPURLResponse)
        return Response(status: http.statusCode, body: data)
    }
}
