import Foundation
import HeraldAuth
import HeraldCore
import HeraldProviderClient
import HeraldStore
import HeraldTestSupport
import HeraldTestTiers
import HeraldTesting
import Testing

/// The whole server on PostgreSQL (`herald serve --database`): the provider API, delivery and the inspection of
/// traces behave as on SQLite (docs/postgresql.md).
@Suite("The server on PostgreSQL", .tier(.process))
struct PostgresServerTests {
    static let app = "com.example.pg"

    static func alert(_ title: String) -> [UInt8] {
        Array(#"{"aps":{"alert":{"title":"\#(title)","body":"Hi"}}}"#.utf8)
    }

    /// A test server on a new database, dropped afterwards.
    static func withPostgresServer<T: Sendable>(_ body: (HeraldTestServer) async throws -> T) async throws -> T {
        let url = try PostgresTestServer.createDatabase()
        defer { PostgresTestServer.dropDatabase(url) }
        var options = HeraldTestServer.Options()
        options.database = url
        return try await withHeraldServer(options, body)
    }

    @Test("A push to a connected device is shown and traced; an unknown token gets 400 (the registry is asked from the gateway's event loop)")
    func delivered() async throws {
        try await Self.withPostgresServer { server in
            let device = try await server.addDevice(apps: [Self.app])
            let client = try server.makeProviderClient(tls: true)
            do {
                let token = try device.token(for: Self.app)
                let response = try await client.send(
                    APNSRequest(deviceToken: token, payload: Self.alert("Hello PG"), topic: Self.app, pushType: .alert)
                )
                #expect(response.status == 200)
                let apnsID = try #require(response.apnsID)
                _ = try await device.expectNotification(titled: "Hello PG", in: Self.app, within: .seconds(10))
                let trace = try await server.expectTrace(of: apnsID, contains: .displayed, within: .seconds(10))
                #expect(trace.map(\.kind).prefix(3) == [.accepted, .sent, .acknowledged])
                let stored = try await server.server.store.notification(try #require(NotificationID(apnsID)))
                #expect(stored?.state == .delivered)

                let unknown = try await client.send(
                    APNSRequest(deviceToken: DeviceToken.random().hex, payload: Self.alert("Nobody"), topic: Self.app, pushType: .alert)
                )
                #expect(unknown.status == 400 && unknown.reason == .badDeviceToken)
            } catch {
                await client.shutdown()
                throw error
            }
            await client.shutdown()
        }
    }

    @Test("An offline device keeps one notification per app: the older are replaced; an unregistered token gets 410")
    func offlineSlotAndUnregistered() async throws {
        try await Self.withPostgresServer { server in
            let token = try await server.offlineToken(for: Self.app)
            let client = try server.makeProviderClient(tls: false)
            do {
                var ids: [String] = []
                for title in ["one", "two", "three"] {
                    let response = try await client.send(
                        APNSRequest(deviceToken: token, payload: Self.alert(title), topic: Self.app, pushType: .alert)
                    )
                    #expect(response.status == 200)
                    ids.append(try #require(response.apnsID))
                }
                for id in ids.prefix(2) {
                    _ = try await server.expectTrace(of: id, contains: .replaced, within: .seconds(10))
                }
                let store = server.server.store
                #expect(try await store.notification(try #require(NotificationID(ids[2])))?.state == .stored)

                let record = try await store.unregister(try #require(DeviceToken(hex: token)), atMilliseconds: server.clock.nowMilliseconds())
                let gone = try await client.send(APNSRequest(deviceToken: token, payload: Self.alert("late"), topic: Self.app, pushType: .alert))
                #expect(gone.status == 410 && gone.reason == .unregistered)
                #expect(gone.timestamp == record.unregisteredAtMilliseconds)
            } catch {
                await client.shutdown()
                throw error
            }
            await client.shutdown()
        }
    }

    @Test("The database goes away under a connected device: providers get 503 ServiceUnavailable, then 200 once it is back")
    func outage() async throws {
        let url = try PostgresTestServer.createDatabase()
        defer { PostgresTestServer.dropDatabase(url) }
        let forwarder = try TCPForwarder(toLoopbackPort: try PostgresTestServer.port())
        var options = HeraldTestServer.Options()
        options.database = PostgresTestServer.url(url, port: forwarder.port)
        // The kit's 10 s deadline, not a shorter one: the cut refuses connections at once, so the 503s come without
        // waiting for it, while a 3 s deadline made the server's own start fail on a loaded CI machine.
        options.databaseOperationTimeout = .seconds(10)
        try await withHeraldServer(options) { server in
            let device = try await server.addDevice(apps: [Self.app])
            let client = try server.makeProviderClient(tls: false)
            do {
                let token = try device.token(for: Self.app)
                func push(_ title: String) async throws -> APNSResponse {
                    try await client.send(APNSRequest(deviceToken: token, payload: Self.alert(title), topic: Self.app, pushType: .alert))
                }
                #expect(try await push("before").status == 200)
                _ = try await device.expectNotification(titled: "before", in: Self.app, within: .seconds(10))

                forwarder.cut()
                let refused = try await push("during")
                #expect(refused.status == 503 && refused.reason == .serviceUnavailable)
                #expect(refused.apnsID != nil)
                // A token the gateway has not seen cannot be checked: 503 too, never 400 BadDeviceToken (a provider
                // drops a token on that answer).
                let unchecked = try await client.send(
                    APNSRequest(deviceToken: DeviceToken.random().hex, payload: Self.alert("unchecked"), topic: Self.app, pushType: .alert)
                )
                #expect(unchecked.status == 503 && unchecked.reason == .serviceUnavailable)
                // A key the gateway has not seen cannot be looked up either: 503, not 403 InvalidProviderToken (a
                // provider takes that as "this key is wrong"). On a connection of its own: a connection keeps its
                // first key's team.
                var otherKey = try server.providerClientConfiguration(tls: false)
                otherKey.authentication = .token(try PrivateSigningKey.generate(teamID: "OTHERTEAM1"))
                let stranger = try APNSProviderClient(configuration: otherKey)
                let unknownKey = try await stranger.send(
                    APNSRequest(deviceToken: token, payload: Self.alert("unknown key"), topic: Self.app, pushType: .alert)
                )
                await stranger.shutdown()
                #expect(unknownKey.status == 503 && unknownKey.reason == .serviceUnavailable, "\(unknownKey)")

                try forwarder.restore()
                try await eventually("a push accepted once the database is back", within: .seconds(30), every: .milliseconds(250)) {
                    try await push("after").status == 200
                }
                _ = try await device.expectNotification(titled: "after", in: Self.app, within: .seconds(15))
            } catch {
                await client.shutdown()
                throw error
            }
            await client.shutdown()
        }
    }
}
