import Foundation
import HeraldServer
import HeraldTestTiers
import Logging
import ServiceLifecycle
import Synchronization
import Testing

@testable import HeraldWeb

/// `GET /healthz` and `GET /readyz` (docs/console.md, "Health"): the router alone with conditions a test sets, then
/// `herald serve`'s wiring in-process, before its ports are bound, running, and after it stopped.
@Suite("Web port health: /healthz and /readyz", .tier(.inProcess))
struct HealthEndpointsTests {
    static func get(_ router: WebRouter, _ path: String, method: String = "GET") async -> WebResponse {
        await router.respond(to: WebRequest(method: method, target: path))
    }

    /// The body as an object, checked against the schema docs/inspection-api.json gives for its path and status.
    static func documented(_ response: WebResponse, path: String) throws -> [String: Any] {
        let document = try OpenAPIDocument.load()
        let body = try #require(try JSONSerialization.jsonObject(with: Data(response.body)) as? [String: Any])
        let problems = try document.problems(body, against: try document.responseSchema(path: path, status: response.status))
        #expect(problems.isEmpty, "\(path) \(response.status): \(problems)")
        #expect(response.headers["content-type"] == "application/json")
        return body
    }

    @Test("/readyz names each condition that does not hold, in order, with 503; 200 once all hold; /healthz is 200 all along")
    func conditions() async throws {
        let met = Mutex<Set<String>>([])
        let conditions = ["store", "provider-ports", "cluster-lease"].map { name in
            ReadinessCondition(name) { met.withLock { $0.contains(name) } }
        }
        var routes = WebRoutes()
        HealthEndpoints(conditions: conditions).addRoutes(to: &routes)
        let router = WebRouter(routes: routes, configuration: WebConfiguration(), metrics: .init(), logger: .init(label: "test.health"))

        // Each step: what /readyz waits for, then the condition the step meets.
        let steps: [(waiting: [String], thenMet: String)] = [
            (["store", "provider-ports", "cluster-lease"], "provider-ports"),
            (["store", "cluster-lease"], "store"),
            (["cluster-lease"], "cluster-lease"),
        ]
        for step in steps {
            let answer = await Self.get(router, "/readyz")
            #expect(answer.status == 503)
            let body = try Self.documented(answer, path: "/readyz")
            #expect(body["status"] as? String == "not-ready")
            #expect(body["waiting"] as? [String] == step.waiting)
            #expect(await Self.get(router, "/readyz", method: "HEAD").status == 503)
            let alive = await Self.get(router, "/healthz")
            #expect(alive.status == 200)
            #expect(try Self.documented(alive, path: "/healthz")["status"] as? String == "alive")
            met.withLock { _ = $0.insert(step.thenMet) }
        }
        let ready = await Self.get(router, "/readyz")
        #expect(ready.status == 200)
        #expect(try Self.documented(ready, path: "/readyz")["status"] as? String == "ready")
        let head = await Self.get(router, "/readyz", method: "HEAD")
        #expect(head.status == 200 && head.body.isEmpty)
        // Another condition lost again: not ready again.
        met.withLock { _ = $0.remove("store") }
        #expect(try Self.documented(await Self.get(router, "/readyz"), path: "/readyz")["waiting"] as? [String] == ["store"])
        #expect(await Self.get(router, "/readyz", method: "POST").status == 405)
    }

    @Test("herald serve's wiring: not ready until its ports are bound, then ready without the API token; not ready once stopped")
    func heraldServer() async throws {
        var logger = Logger(label: "test.health")
        logger.logLevel = .warning
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("herald-health-\(UUID().uuidString)")
        defer { try? FileManager.default.removeItem(at: directory) }
        var configuration = HeraldServer.Configuration(dataDirectory: directory)
        configuration.gateway.tlsPort = nil
        configuration.gateway.cleartextPort = 0
        configuration.gateway.eventLoopThreads = 1
        configuration.web?.port = 0
        configuration.web?.eventLoopThreads = 1
        configuration.web?.access = WebAccessPolicy(apiToken: "health-token-0123456789")
        let server = try await HeraldServer(configuration: configuration, logger: logger)
        let router = try await #require(server.web).router

        // The store is open (the server opened it), nothing listens yet.
        let before = await Self.get(router, "/readyz")
        #expect(before.status == 503)
        #expect(try Self.documented(before, path: "/readyz")["waiting"] as? [String] == ["provider-ports", "web-port"])
        #expect(await Self.get(router, "/healthz").status == 200)

        let group = ServiceGroup(services: server.services, logger: logger)
        let run = Task { try await group.run() }
        let result: Result<Void, any Error>
        do {
            try await server.waitUntilReady()
            let port = try #require(await server.web?.port)
            // Over the network, without the token the API needs.
            #expect(try await InspectionHTTP.request(port: port, path: "/api/v1/devices").status == 401)
            let ready = try await InspectionHTTP.request(port: port, path: "/readyz")
            #expect(ready.status == 200)
            #expect(ready.object?["status"] as? String == "ready", "\(ready.object ?? [:])")
            let alive = try await InspectionHTTP.request(port: port, path: "/healthz")
            #expect(alive.status == 200 && alive.object?["status"] as? String == "alive")
            result = .success(())
        } catch {
            result = .failure(error)
        }
        await group.triggerGracefulShutdown()
        _ = try? await run.value
        let stopped = await Self.get(router, "/readyz")
        #expect(try Self.documented(stopped, path: "/readyz")["waiting"] as? [String] == ["provider-ports", "web-port"])
        await server.shutdown()
        let closed = await Self.get(router, "/readyz")
        #expect(try Self.documented(closed, path: "/readyz")["waiting"] as? [String] == ["store", "provider-ports", "web-port"])
        try result.get()
    }
}
