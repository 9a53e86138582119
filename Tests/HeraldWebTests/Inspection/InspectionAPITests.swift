import Foundation
import HeraldCore
import HeraldDeviceLink
import HeraldServer
import HeraldStore
import HeraldTestSupport
import HeraldTestTiers
import Testing

@testable import HeraldDelivery
@testable import HeraldWeb

@Suite("Inspection API: live over HTTP/1.1, checked against docs/inspection-api.json", .tier(.inProcess))
struct InspectionAPITests {
    static let app = "com.example.app"

    /// What the store holds for the tests: two devices, tokens (one unregistered), a notification with a trace.
    struct Scenario {
        var phone: DeviceCredentials
        var tablet: DeviceCredentials
        var token: DeviceToken
        var oldToken: DeviceToken
        var notification: AcceptedNotification
        var payload: String
    }

    private func makeScenario(_ fixture: LinkServerFixture) async throws -> Scenario {
        let store = fixture.store
        let phone = try await store.addDevice(name: "phone")
        fixture.clock.advance(seconds: 1)
        let tablet = try await store.addDevice(name: "tablet")
        let old = try await store.registerAppToken(deviceID: phone.device.id, bundleID: "com.example.old", environment: .production)
        try await store.unregister(old.token.token, atMilliseconds: fixture.clock.nowMilliseconds())
        fixture.clock.advance(seconds: 1)
        let current = try await store.registerAppToken(deviceID: phone.device.id, bundleID: Self.app, environment: .sandbox)
        let payload = #"{"aps" : {"alert":"Hello"}, "n": 1.50}"#
        let notification = AcceptedNotification.fixture(
            token: current.token.token,
            collapseID: "c1",
            acceptedAt: fixture.clock.nowMilliseconds(),
            payload: payload
        )
        try await store.accept(notification)
        try await store.record([
            DeliveryChange(
                notificationID: notification.id,
                event: .sent,
                atMilliseconds: fixture.clock.nowMilliseconds(),
                detailJSON: #"{"attempt":1}"#
            )
        ])
        return Scenario(
            phone: phone,
            tablet: tablet,
            token: current.token.token,
            oldToken: old.token.token,
            notification: notification,
            payload: payload
        )
    }

    private func get(_ fixture: LinkServerFixture, _ path: String, method: String = "GET") async throws -> InspectionHTTPResponse {
        try await InspectionHTTP.request(port: fixture.port, path: path, method: method)
    }

    @Test("the route table and the document agree: each operation is one route with its method, path and id; each id is documented")
    func documentMatchesRoutes() async throws {
        let document = try OpenAPIDocument.load()
        #expect(document.root["openapi"] as? String == "3.1.0")
        var documented: [String: String] = [:]
        for (path, operations) in document.root["paths"] as? [String: [String: Any]] ?? [:] {
            for (method, operation) in operations {
                let id = try #require((operation as? [String: Any])?["operationId"] as? String, "\(method) \(path) has no operationId")
                #expect(documented.updateValue("\(method.uppercased()) \(path)", forKey: id) == nil, "operationId \(id) twice")
            }
        }
        let routes = try await Self.serverRoutes()
        for (id, operation) in documented {
            let matching = routes.routes.filter { "\($0.method.rawValue) \($0.path)" == operation }
            #expect(matching.count == 1, "\(operation) (\(id)) has \(matching.count) routes")
            #expect(matching.first?.operationID == id, "\(operation): the route's operation id is not \(id)")
        }
        for route in routes.routes {
            guard let id = route.operationID else {
                #expect(!route.path.hasPrefix(APIIndex.path), "\(route.method) \(route.path) has no operation id")
                continue
            }
            let operation = "\(route.method.rawValue) \(route.path)"
            #expect(documented[id] == operation, "\(operation) names \(id), which the document gives \(documented[id] ?? "no operation")")
        }
        #expect(routes.operations.count == documented.count)
        for (path, methods) in document.operations {
            for method in methods {
                #expect(document.statuses(path: path, method: method).contains { (200..<300).contains($0) }, "\(method) \(path)")
            }
        }
    }

    /// The route table of a `herald serve` (built, not started): every part's routes, the health endpoints, the index.
    static func serverRoutes() async throws -> WebRoutes {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("herald-routes-\(UUID().uuidString)", isDirectory: true)
        defer { try? FileManager.default.removeItem(at: directory) }
        var configuration = HeraldServer.Configuration(dataDirectory: directory)
        configuration.gateway.tlsPort = nil
        let server = try await HeraldServer(configuration: configuration, logger: .init(label: "test.routes"))
        let routes = server.web?.routes
        await server.shutdown()
        return try #require(routes)
    }

    @Test("waits are bounded: one more than the limit at once is 503, and a place is free again once a wait ends")
    func waitsAreBounded() async throws {
        try await LinkServerFixture.with(inspection: true, runsEngine: true) { fixture in
            var routes = WebRoutes()
            let api = InspectionAPI(store: fixture.store, engine: fixture.engine, maximumWaits: 1)
            api.addRoutes(to: &routes)
            let router = WebRouter(routes: routes, configuration: WebConfiguration(), metrics: .init(), logger: .init(label: "test.wait"))
            let waiting = Task { await router.respond(to: WebRequest(method: "GET", target: "/api/v1/notifications/wait?timeoutMs=20000")) }
            // The first wait holds the one place while the store is empty; then another is refused.
            try await eventually("the first wait holds its place", within: .seconds(15)) { api.waits.current > 0 }
            let busy = await router.respond(to: WebRequest(method: "GET", target: "/api/v1/notifications/wait?timeoutMs=0"))
            #expect(busy.status == 503)
            #expect(String(decoding: busy.body, as: UTF8.self) == #"{"error":"1 waits are in progress; wait for one to end"}"#)
            let token = try await fixture.store.registerToken(bundleID: Self.app, environment: .sandbox, deviceID: nil)
            try await fixture.store.accept(AcceptedNotification.fixture(token: token, acceptedAt: fixture.clock.nowMilliseconds()))
            let waited = await waiting.value
            #expect(waited.status == 200, "\(String(decoding: waited.body, as: UTF8.self))")
            #expect(await router.respond(to: WebRequest(method: "GET", target: "/api/v1/notifications/wait?timeoutMs=0")).status == 200)
        }
    }

    @Test("the schema check finds a missing or unknown member, a wrong type, a bad enum value or pattern, a oneOf mismatch")
    func schemaCheckIsNotVacuous() throws {
        let document = try OpenAPIDocument.load()
        let schema = try document.responseSchema(path: "/api/v1/devices", status: 200)
        let good: [String: Any] = ["devices": [["id": "d", "name": "n", "createdAt": 1, "online": true, "screenAt": NSNull(), "tokens": []]]]
        #expect(try document.problems(good, against: schema).isEmpty)
        let missing: [String: Any] = ["devices": [["id": "d", "name": "n", "createdAt": 1, "screenAt": 5, "tokens": []]]]
        #expect(try document.problems(missing, against: schema) == ["$.devices[0].online is missing"])
        let token: [String: Any] = [
            "token": "t", "bundleID": "b", "environment": "staging", "registeredAt": true, "unregisteredAt": NSNull(),
            "kind": "device", "activityType": NSNull(),
        ]
        let wrong: [String: Any] = ["devices": [["id": "d", "name": "n", "createdAt": 1, "online": 1, "screenAt": 2, "tokens": [token]]]]
        // online (type), environment (enum), registeredAt (type), token (pattern).
        #expect(try document.problems(wrong, against: schema).count == 4)
        let extra: [String: Any] = ["devices": [], "more": 1]
        #expect(try document.problems(extra, against: schema) == ["$.more is not in the schema"])
        // oneOf: a verdict is either valid alone or invalid with status, reason and message.
        let validation = try document.responseSchema(path: "/api/v1/console/validate", method: "post", status: 200)
        #expect(try document.problems(["valid": true], against: validation).isEmpty)
        #expect(try document.problems(["valid": false, "status": 400, "reason": "PayloadEmpty", "message": "m"], against: validation).isEmpty)
        #expect(try document.problems(["valid": false], against: validation).count == 1)
        #expect(try document.problems(["valid": true, "status": 400], against: validation).count == 1)
    }

    @Test("each documented path answers 200 with a body that fits its documented schema")
    func responsesFitTheDocument() async throws {
        let document = try OpenAPIDocument.load()
        try await LinkServerFixture.with(inspection: true, runsEngine: true) { fixture in
            let scenario = try await makeScenario(fixture)
            let parameters = ["{id}": scenario.phone.device.id, "{apnsID}": scenario.notification.id.text]
            var routes = WebRoutes()
            InspectionAPI(store: fixture.store, engine: fixture.engine).addRoutes(to: &routes)
            for path in routes.routes.map(\.path) {
                let concrete = parameters.reduce(path) { $0.replacingOccurrences(of: $1.key, with: $1.value) }
                let response = try await get(fixture, concrete)
                #expect(response.status == 200, "\(concrete)")
                #expect(response.contentType == "application/json", "\(concrete)")
                let body = try #require(response.json, "\(concrete) is not JSON")
                let problems = try document.problems(body, against: try document.responseSchema(path: path, status: 200))
                #expect(problems.isEmpty, "\(concrete): \(problems)")
            }
        }
    }

    @Test("devices list their tokens, oldest first, and whether they are connected")
    func devices() async throws {
        try await LinkServerFixture.with(inspection: true, runsEngine: true) { fixture in
            let scenario = try await makeScenario(fixture)
            let client = try await fixture.connect(as: scenario.phone)
            await fixture.engine.waitUntilIdle()
            let list = try #require(try await get(fixture, "/api/v1/devices").object)
            let devices = try #require(list["devices"] as? [[String: Any]])
            #expect(devices.map { $0["id"] as? String } == [scenario.phone.device.id, scenario.tablet.device.id])
            #expect(devices.map { $0["online"] as? Bool } == [true, false])
            let tokens = try #require(devices[0]["tokens"] as? [[String: Any]])
            #expect(tokens.map { $0["token"] as? String } == [scenario.oldToken.hex, scenario.token.hex])
            #expect(tokens[0]["unregisteredAt"] as? Int64 == fixture.clock.nowMilliseconds() - 1000)
            #expect(tokens[1]["unregisteredAt"] is NSNull)
            #expect(tokens[0]["environment"] as? String == "production")
            #expect(tokens.map { $0["kind"] as? String } == ["device", "device"])

            let one = try #require(try await get(fixture, "/api/v1/devices/\(scenario.tablet.device.id)").object)
            #expect(one["name"] as? String == "tablet")
            #expect((one["tokens"] as? [Any])?.isEmpty == true)
            await client.close()
        }
    }

    @Test("a notification comes with its payload as sent and its trace; lists filter by device and token")
    func notifications() async throws {
        try await LinkServerFixture.with(inspection: true, runsEngine: true) { fixture in
            let scenario = try await makeScenario(fixture)
            let response = try await get(fixture, "/api/v1/notifications/\(scenario.notification.id.text.uppercased())")
            let body = String(decoding: response.body, as: UTF8.self)
            #expect(body.contains(#""payload":\#(scenario.payload)"#))
            let object = try #require(response.object)
            #expect(object["apnsID"] as? String == scenario.notification.id.text)
            #expect(object["state"] as? String == "stored")
            #expect(object["collapseID"] as? String == "c1")
            let trace = try #require(object["trace"] as? [[String: Any]])
            #expect(trace.map { $0["kind"] as? String } == ["accepted", "sent"])
            #expect((trace[1]["detail"] as? [String: Any])?["attempt"] as? Int == 1)

            let byDevice = try #require(try await get(fixture, "/api/v1/devices/\(scenario.phone.device.id)/notifications?limit=5").object)
            #expect((byDevice["notifications"] as? [Any])?.count == 1)
            let forTablet = try #require(try await get(fixture, "/api/v1/devices/\(scenario.tablet.device.id)/notifications").object)
            #expect((forTablet["notifications"] as? [Any])?.isEmpty == true)
            let byToken = try #require(try await get(fixture, "/api/v1/notifications?token=\(scenario.token.hex)").object)
            #expect((byToken["notifications"] as? [Any])?.count == 1)
            let otherToken = try #require(try await get(fixture, "/api/v1/notifications?token=\(scenario.oldToken.hex)").object)
            #expect((otherToken["notifications"] as? [Any])?.isEmpty == true)

            let trail = try #require(try await get(fixture, "/api/v1/notifications/\(scenario.notification.id.text)/trace").object)
            #expect(trail["apnsID"] as? String == scenario.notification.id.text)
            #expect((trail["trace"] as? [Any])?.count == 2)
        }
    }

    @Test(
        "bad requests get a documented JSON error",
        arguments: [
            ("/api/v1/devices/no-such-device", "/api/v1/devices/{id}", 404),
            ("/api/v1/devices/no-such-device/notifications", "/api/v1/devices/{id}/notifications", 404),
            ("/api/v1/notifications/8f0e2c2a-1b4e-4d2a-9c53-2f1a0f6b7e01", "/api/v1/notifications/{apnsID}", 404),
            ("/api/v1/notifications/8f0e2c2a-1b4e-4d2a-9c53-2f1a0f6b7e01/trace", "/api/v1/notifications/{apnsID}/trace", 404),
            ("/api/v1/notifications/not-a-uuid", "/api/v1/notifications/{apnsID}", 400),
            ("/api/v1/notifications/not-a-uuid/trace", "/api/v1/notifications/{apnsID}/trace", 400),
            ("/api/v1/notifications?limit=0", "/api/v1/notifications", 400),
            ("/api/v1/notifications?limit=ten", "/api/v1/notifications", 400),
            ("/api/v1/notifications?token=xyz", "/api/v1/notifications", 400),
        ]
    )
    func errors(path: String, documentedPath: String, status: Int) async throws {
        let document = try OpenAPIDocument.load()
        try await LinkServerFixture.with(inspection: true, runsEngine: true) { fixture in
            let response = try await get(fixture, path)
            #expect(response.status == status)
            #expect(document.statuses(path: documentedPath).contains(status))
            let body = try #require(response.json)
            let problems = try document.problems(body, against: try document.responseSchema(path: documentedPath, status: status))
            #expect(problems.isEmpty, "\(problems)")
        }
    }

    @Test("unknown paths are 404, other methods 405, and /device-link without an upgrade 426, all as JSON")
    func otherRequests() async throws {
        try await LinkServerFixture.with(inspection: true, runsEngine: true) { fixture in
            let unknown = try await get(fixture, "/api/v1/nothing")
            #expect(unknown.status == 404)
            #expect(unknown.object?["error"] is String)
            let outside = try await get(fixture, "/console")
            #expect(outside.status == 404)
            #expect(outside.object?["error"] is String)
            let post = try await get(fixture, "/api/v1/devices", method: "POST")
            #expect(post.status == 405)
            let link = try await get(fixture, "/device-link")
            #expect(link.status == 426)
            #expect(link.object?["error"] is String)
        }
    }
}
