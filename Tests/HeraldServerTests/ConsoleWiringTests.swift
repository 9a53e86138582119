import Foundation
import HeraldTestTiers
import HeraldTesting
import Testing

#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// `herald serve`'s web port as HeraldServer wires it (tier 3): the console on `/`, the JSON API still on `/api/v1/`.
@Suite("Console: wired on the web port next to the inspection API", .tier(.inProcess))
struct ConsoleWiringTests {
    static func get(_ url: String) async throws -> (status: Int, contentType: String?, body: Data) {
        let target = try #require(URL(string: url))
        let (data, response) = try await URLSession.shared.data(
            for: URLRequest(url: target, cachePolicy: .reloadIgnoringLocalCacheData, timeoutInterval: 10)
        )
        let http = try #require(response as? HTTPURLResponse)
        return (http.statusCode, http.value(forHTTPHeaderField: "content-type"), data)
    }

    @Test("GET / is the console page; GET /api/v1/devices is still the JSON API; an unknown path is a JSON 404")
    func consoleAndAPI() async throws {
        try await withHeraldServer(HeraldTestServer.Options.cleartextOnly) { server in
            _ = try await server.addDevice(named: "Console phone", apps: ["com.example.console"])
            let root = try #require(server.inspectionURL.components(separatedBy: "api/v1/").first)
            #expect(root.hasPrefix("http://127.0.0.1:") && root.hasSuffix("/"), "\(root)")

            for path in ["", "console"] {
                let page = try await Self.get(root + path)
                #expect(page.status == 200, "/\(path)")
                #expect(page.contentType == "text/html; charset=utf-8", "/\(path)")
                let html = String(decoding: page.body, as: UTF8.self)
                #expect(html.contains(#"data-testid="send-form""#), "/\(path)")
                #expect(html.contains(#"data-testid="send-payload""#), "/\(path)")
            }

            let devices = try await Self.get(server.inspectionURL + "devices")
            #expect(devices.status == 200)
            #expect(devices.contentType == "application/json")
            let object = try JSONSerialization.jsonObject(with: devices.body) as? [String: Any]
            let names = (object?["devices"] as? [[String: Any]])?.compactMap { $0["name"] as? String }
            #expect(names == ["Console phone"], "\(String(decoding: devices.body, as: UTF8.self))")

            let unknown = try await Self.get(root + "console/nothing")
            #expect(unknown.status == 404)
            #expect(unknown.contentType == "application/json")
        }
    }

    @Test("GET /api/v1/ (the banner's inspection link) lists each resource docs/inspection-api.json has under it, with its methods")
    func resourceIndex() async throws {
        var root = URL(fileURLWithPath: #filePath)
        for _ in 0..<3 { root.deleteLastPathComponent() }
        let document = try #require(
            try JSONSerialization.jsonObject(with: Data(contentsOf: root.appendingPathComponent("docs/inspection-api.json"))) as? [String: Any]
        )
        let paths = try #require(document["paths"] as? [String: [String: Any]])
        var documented: [String: Set<String>] = [:]
        for (path, operations) in paths where path.hasPrefix("/api/v1/") { documented[path] = Set(operations.keys.map { $0.uppercased() }) }

        try await withHeraldServer(HeraldTestServer.Options.cleartextOnly) { server in
            let index = try await Self.get(server.inspectionURL)
            #expect(index.status == 200)
            #expect(index.contentType == "application/json")
            let object = try #require(try JSONSerialization.jsonObject(with: index.body) as? [String: Any])
            #expect(object["documentation"] as? String == "docs/inspection-api.json")
            let resources = try #require(object["resources"] as? [[String: Any]])
            let listed = resources.compactMap { $0["path"] as? String }
            #expect(listed == listed.sorted() && listed.first == "/api/v1/", "\(listed)")
            var served: [String: Set<String>] = [:]
            for resource in resources {
                if let path = resource["path"] as? String, let methods = resource["methods"] as? [String] { served[path] = Set(methods) }
            }
            #expect(served == documented)
        }
    }
}
