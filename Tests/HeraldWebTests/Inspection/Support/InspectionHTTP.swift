import Foundation
import Testing

#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// One HTTP/1.1 answer from the web port, with its body parsed as JSON.
struct InspectionHTTPResponse: Sendable {
    var status: Int
    var contentType: String?
    var body: Data

    /// The body as a JSON value (`nil` when it is not JSON).
    var json: Any? { try? JSONSerialization.jsonObject(with: body, options: [.fragmentsAllowed]) }
    /// The body as a JSON object.
    var object: [String: Any]? { json as? [String: Any] }
}

/// Plain HTTP requests to the web port through `URLSession` (tier 3).
enum InspectionHTTP {
    static func request(
        port: Int,
        path: String,
        method: String = "GET",
        headers: [String: String] = [:],
        body: String? = nil
    ) async throws -> InspectionHTTPResponse {
        let url = try #require(URL(string: "http://127.0.0.1:\(port)\(path)"))
        var request = URLRequest(url: url, cachePolicy: .reloadIgnoringLocalCacheData, timeoutInterval: 10)
        request.httpMethod = method
        for (name, value) in headers { request.setValue(value, forHTTPHeaderField: name) }
        if let body { request.httpBody = Data(body.utf8) }
        let (data, response) = try await URLSession.shared.data(for: request)
        let http = try #require(response as? HTTPURLResponse)
        return InspectionHTTPResponse(status: http.statusCode, contentType: http.value(forHTTPHeaderField: "content-type"), body: data)
    }
}
