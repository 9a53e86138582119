import Foundation
import HeraldAuth
import HeraldCore
import HeraldDeviceLink
import HeraldProviderClient
import HeraldTestSupport
import HeraldTestTiers
import Synchronization
import Testing

/// Tier 3 with real processes: several `herald serve --cluster` nodes on one PostgreSQL database (docs/cluster.md).
/// A provider may send through any node and a device may connect to any node; every rule holds as on one node.
@Suite("End to end: several herald serve nodes on one PostgreSQL database", .serialized, .tier(.process))
struct ClusterEndToEndTests {
    static let nodeNames = ["node-a", "node-b", "node-c"]

    /// Starts `count` nodes of a cluster on the workspace's database, each with a data directory of its own.
    static func startNodes(_ count: Int, in workspace: HeraldWorkspace, options: [String] = []) async throws -> [HeraldServeProcess] {
        var nodes: [HeraldServeProcess] = []
        for name in nodeNames.prefix(count) {
            let directory = workspace.data.appendingPathComponent(name)
            try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
            nodes.append(
                try await HeraldServeProcess.start(in: workspace, dataDirectory: directory, options: ["--cluster", "--node-id", name] + options)
            )
        }
        return nodes
    }

    @Test("A provider sends through node A to a device connected to node B: delivered, and every node shows the same trace")
    func providerOnOneNodeDeviceOnAnother() async throws {
        try await HeraldWorkspace.with(onPostgreSQL: true) { workspace in
            let nodes = try await Self.startNodes(2, in: workspace)
            #expect(nodes[1].process.stdoutSoFar.contains("cluster node node-b"), "\(nodes[1].process.stdoutSoFar)")
            let credentials = try await workspace.addDevice("phone")
            let device = try await HeraldDeviceProcess.start(in: workspace, server: nodes[1], device: credentials)
            let token = try await device.token(for: HeraldWorkspace.topic)
            try await nodes[1].waitUntil(deviceID: credentials.id, isOnline: true)
            // Every node answers for the whole cluster: online, on node B.
            try await nodes[0].waitUntil(deviceID: credentials.id, isOnline: true)
            #expect(try await nodes[0].nodes(deviceID: credentials.id) == ["node-b"])

            let apnsID = try await nodes[0].send(token: token, ["--alert", "through node a"])
            _ = try await device.waitForNotification(apnsID)
            let onA = try await nodes[0].waitForNotification(apnsID, "delivered") { $0.state == "delivered" }
            #expect(Array(onA.kinds.prefix(3)) == ["accepted", "sent", "acknowledged"], "\(onA)")
            #expect(onA.detail(of: "sent")?["node"] as? String == "node-b", "\(onA)")
            // Read after A's, B's trace has at least A's events, in the same order (a `displayed` may have come between).
            let onB = try #require(try await nodes[1].notification(apnsID))
            #expect(Array(onB.kinds.prefix(onA.kinds.count)) == onA.kinds, "\(onA)\n\(onB)")

            // And the other way round, many times: none lost, none twice.
            var sent: [String] = []
            for index in 0..<20 { sent.append(try await nodes[index % 2].send(token: token, ["--alert", "number \(index)"])) }
            for id in sent { _ = try await device.waitForNotification(id) }
            #expect(device.printedIDs.count == 21, "\(device.describe())")
            #expect(Set(device.printedIDs).count == 21, "\(device.describe())")
            // Node B took node A's 11 from the store: handed off (or, when the hand-off came late, found by the sweep).
            // The sweep may also find one of B's own 10 in the store before B's gateway has told B's engine of it (docs/
            // metrics.md); the device above got each notification once all the same.
            let metrics = try await nodes[1].metrics()
            let handedOff = Self.value(of: #"herald_cluster_adopted_total{source="handoff"}"#, in: metrics)
            let swept = Self.value(of: #"herald_cluster_adopted_total{source="sweep"}"#, in: metrics)
            #expect(handedOff >= 1 && handedOff <= 11 && handedOff + swept >= 11 && handedOff + swept <= 21, "\(metrics)")
        }
    }

    @Test("Node A's console shows a device connected to node B (its screen, its live events) and drives it through B")
    func consoleAcrossNodes() async throws {
        try await HeraldWorkspace.with(onPostgreSQL: true) { workspace in
            let nodes = try await Self.startNodes(2, in: workspace)
            let credentials = try await workspace.addDevice("phone")
            let device = try await HeraldDeviceProcess.start(in: workspace, server: nodes[1], device: credentials)
            let token = try await device.token(for: HeraldWorkspace.topic)
            try await nodes[0].waitUntil(deviceID: credentials.id, isOnline: true)
            let (_, start) = try await nodes[0].inspect("/api/v1/events")
            let after = try #require(start?["next"] as? Int)

            // The push shows on the screen node A's console reads (node B received it from the device).
            let apnsID = try await nodes[0].send(token: token, ["--alert", "shown on b, read on a"])
            _ = try await device.waitForNotification(apnsID)
            let identifier = try await eventually("node A's console shows the notification", within: .seconds(30)) { () -> String? in
                let (status, answer) = try await nodes[0].inspect("/api/v1/devices/\(credentials.id)/screen")
                guard status == 200, let answer, answer["online"] as? Bool == true else { return nil }
                return Self.notifications(in: answer).first { $0["body"] as? String == "shown on b, read on a" }?["identifier"] as? String
            }
            let (_, listed) = try await nodes[0].inspect("/api/v1/devices/\(credentials.id)")
            #expect(listed?["screenAt"] as? Int != nil, "\(listed ?? [:])")
            // Node A's live events have node B's: the device's screens and the notification's trace events.
            let (_, events) = try await nodes[0].inspect("/api/v1/events?after=\(after)")
            let relayed = events?["events"] as? [[String: Any]] ?? []
            #expect(relayed.contains { $0["kind"] as? String == "screen" && $0["deviceID"] as? String == credentials.id }, "\(relayed)")
            #expect(relayed.contains { $0["kind"] as? String == "trace" && ($0["apnsID"] as? String)?.lowercased() == apnsID.lowercased() })

            // A tap from node A's console runs on the device (its link is node B's): the trace says so, and the
            // notification leaves the screen node A reads.
            let tap = #"{"bundleID":"\#(HeraldWorkspace.topic)","kind":"tap","identifier":"\#(identifier)"}"#
            let (status, answer) = try await nodes[0].webPost("/api/v1/devices/\(credentials.id)/interactions", json: tap)
            #expect(status == 200 && answer?["ok"] as? Bool == true, "\(status) \(answer ?? [:])")
            _ = try await nodes[0].waitForNotification(apnsID, "action") { $0.kinds.contains("action") }
            try await eventually("the tapped notification leaves the screen node A reads", within: .seconds(30)) { () -> Bool? in
                let (_, answer) = try await nodes[0].inspect("/api/v1/devices/\(credentials.id)/screen")
                return Self.notifications(in: answer ?? [:]).contains { $0["identifier"] as? String == identifier } ? nil : true
            }
            // The device refuses what it cannot do (the notification is gone): its message, through node B.
            let (again, refusal) = try await nodes[0].webPost("/api/v1/devices/\(credentials.id)/interactions", json: tap)
            #expect(again == 409 && (refusal?["error"] as? String)?.isEmpty == false, "\(again) \(refusal ?? [:])")

            // Offline everywhere: node A still shows the last screen, offline, and an interaction is 409.
            try await device.stop()
            try await nodes[0].waitUntil(deviceID: credentials.id, isOnline: false)
            let (kept, last) = try await nodes[0].inspect("/api/v1/devices/\(credentials.id)/screen")
            #expect(kept == 200 && last?["online"] as? Bool == false, "\(kept) \(last ?? [:])")
            let (offline, _) = try await nodes[0].webPost("/api/v1/devices/\(credentials.id)/interactions", json: tap)
            #expect(offline == 409)
        }
    }

    /// The notifications in Notification Center on a `GET /api/v1/devices/{id}/screen` answer.
    static func notifications(in answer: [String: Any]) -> [[String: Any]] {
        let apps = (answer["screen"] as? [String: Any])?["apps"] as? [[String: Any]] ?? []
        let threads = apps.flatMap { ($0["center"] as? [String: Any])?["threads"] as? [[String: Any]] ?? [] }
        return threads.flatMap { $0["notifications"] as? [[String: Any]] ?? [] }
    }

    /// An alert with a new `apns-id` (lowercase), for the workspace's app.
    static func alert(_ text: String, to token: String) -> (apnsID: String, request: APNSRequest) {
        let apnsID = UUID().uuidString.lowercased()
        let request = APNSRequest(
            deviceToken: token,
            payload: Array(#"{"aps":{"alert":"\#(text)"}}"#.utf8),
            topic: HeraldWorkspace.topic,
            pushType: .alert,
            priority: .immediate,
            apnsID: apnsID
        )
        return (apnsID, request)
    }

    /// A sample's value in Prometheus text (0 when absent).
    static func value(of series: String, in text: String) -> Double {
        for line in text.split(separator: "\n") where line.hasPrefix(series + " ") {
            return Double(line.dropFirst(series.count + 1)) ?? 0
        }
        return 0
    }

    @Test("A device offline; pushes through nodes A and C; it connects to node B and gets only the newest")
    func offlineAcrossNodes() async throws {
        try await HeraldWorkspace.with(onPostgreSQL: true) { workspace in
            let nodes = try await Self.startNodes(3, in: workspace)
            let credentials = try await workspace.addDevice("phone")
            let first = try await HeraldDeviceProcess.start(in: workspace, server: nodes[1], device: credentials)
            let token = try await first.token(for: HeraldWorkspace.topic)
            try await first.stop()
            try await nodes[1].waitUntil(deviceID: credentials.id, isOnline: false)

            let older = try await nodes[0].send(token: token, ["--alert", "older, through a"])
            let middle = try await nodes[2].send(token: token, ["--alert", "middle, through c"])
            let newest = try await nodes[0].send(token: token, ["--alert", "newest, through a"])
            for id in [older, middle, newest] {
                let waiting = try await nodes[2].waitForNotification(id, "stored") { $0.kinds == ["accepted", "stored"] }
                #expect(waiting.detail(of: "stored")?["reason"] as? String == "device-offline", "\(waiting)")
            }

            let again = try await HeraldDeviceProcess.start(in: workspace, server: nodes[1], device: credentials)
            _ = try await again.waitForNotification(newest)
            for id in [older, middle] {
                let replaced = try await nodes[0].waitForNotification(id, "replaced") { $0.state == "replaced" }
                #expect(replaced.detail(of: "replaced")?["reason"] as? String == "offline-storage-limit", "\(replaced)")
                #expect(replaced.detail(of: "replaced")?["by"] as? String == newest, "\(replaced)")
            }
            // Nothing else arrives: what was replaced is never sent.
            try await expectNothing(for: .seconds(1), "a replaced notification sent: \(again.describe())") {
                again.printedIDs != [newest.lowercased()]
            }

            // Offline again, one waits; the token is unregistered (by another process): what waited is discarded, and
            // every node answers 410 from then on.
            try await again.stop()
            try await nodes[1].waitUntil(deviceID: credentials.id, isOnline: false)
            let waiting = try await nodes[2].send(token: token, ["--alert", "waits for an app that goes away"])
            _ = try await nodes[0].waitForNotification(waiting, "stored") { $0.kinds == ["accepted", "stored"] }
            let unregistered = try await workspace.cli(["tokens", "unregister", token])
            #expect(unregistered.succeeded, "\(unregistered)")
            let discarded = try await nodes[1].waitForNotification(waiting, "discarded") { $0.state == "discarded" }
            #expect(discarded.detail(of: "discarded")?["reason"] as? String == "token-unregistered", "\(discarded)")
            let jwt = try await workspace.providerToken()
            for node in nodes {
                try await eventually("410 from \(node.providerURL)", within: .seconds(30)) {
                    let answer = try await node.post(token: token, jwt: jwt, body: #"{"aps":{"alert":"gone"}}"#)
                    return answer.status == 410 ? true : nil
                }
            }
        }
    }

    @Test("herald device --server with two nodes' URLs: its node is killed, it goes on with the other")
    func deviceFailsOver() async throws {
        try await HeraldWorkspace.with(onPostgreSQL: true) { workspace in
            let nodes = try await Self.startNodes(2, in: workspace)
            let credentials = try await workspace.addDevice("phone")
            let urls = nodes[1].deviceLinkURL + "," + nodes[0].deviceLinkURL
            let device = try await HeraldDeviceProcess.start(in: workspace, url: urls, device: credentials)
            let token = try await device.token(for: HeraldWorkspace.topic)
            try await eventually("the device on node B", within: .seconds(30)) {
                try await nodes[0].nodes(deviceID: credentials.id) == ["node-b"] ? true : nil
            }
            nodes[1].crash()
            try await eventually("the device on node A", within: .seconds(60)) {
                try await nodes[0].nodes(deviceID: credentials.id) == ["node-a"] ? true : nil
            }
            let apnsID = try await nodes[0].send(token: token, ["--alert", "after the fail-over"])
            _ = try await device.waitForNotification(apnsID)
            let traced = try await nodes[0].waitForNotification(apnsID, "delivered") { $0.state == "delivered" }
            #expect(traced.detail(of: "sent")?["node"] as? String == "node-a", "\(traced)")
        }
    }

    static let fleetSize = 200
    static let perDevice = 3

    /// `kill -9` of the node all devices are connected to, while pushes flow through the two others: the devices fail
    /// over to the next node of their list, which reads what waits for them. Every `200` is delivered to its device; a
    /// notification is received twice only when the dead node had sent it and its acknowledgement was not written
    /// (the device drops the second copy, as iOS does); nothing a surviving node sent is received twice.
    @Test("kill -9 of the node holding 200 devices while pushes flow through the others: every 200 delivered, none twice from a live node")
    func killNineOfTheDevicesNode() async throws {
        try await HeraldWorkspace.with(onPostgreSQL: true) { workspace in
            let nodes = try await Self.startNodes(3, in: workspace, options: ["--allow-enrol", "--offline-slots", "1000"])
            // Every device starts on node B, then tries C, then A.
            let fleet = (0..<Self.fleetSize).map {
                FleetDevice(name: "fleet-\($0)", ports: [nodes[1].linkPort, nodes[2].linkPort, nodes[0].linkPort])
            }
            let running = fleet.map { device in Task { await device.run() } }
            defer { for task in running { task.cancel() } }
            try await eventually("every fleet device registered", within: .seconds(120)) {
                fleet.allSatisfy { $0.token != nil } ? true : nil
            }
            let tokens = fleet.map { $0.token! }

            let key = try PrivateSigningKey(keyID: HeraldWorkspace.keyID, teamID: HeraldWorkspace.teamID, contentsOf: workspace.keyFile)
            let clients = try [nodes[0], nodes[2]].map { node in
                var configuration = APNSProviderClient.Configuration(
                    endpoint: .init(host: "127.0.0.1", port: node.cleartextPort, usesTLS: false),
                    authentication: .token(key)
                )
                configuration.responseTimeout = .seconds(30)
                return try APNSProviderClient(configuration: configuration)
            }
            let total = Self.fleetSize * Self.perDevice
            let ledger = FleetLedger()
            do {
                try await withThrowingTaskGroup(of: Void.self) { group in
                    for sender in 0..<8 {
                        group.addTask {
                            while let index = ledger.next(of: total) {
                                let token = tokens[index % tokens.count]
                                let (apnsID, request) = Self.alert("fleet \(index)", to: token)
                                let response = try await clients[sender % 2].send(request)
                                guard response.status == 200 else { throw InteropError("\(index): \(response.status) \(response.reason as Any)") }
                                ledger.accepted(apnsID, token: token)
                            }
                        }
                    }
                    try await eventually("a third accepted before the kill", within: .seconds(180), state: "\(ledger.count)") {
                        ledger.count >= total / 3 ? true : nil
                    }
                    nodes[1].crash()
                    try await group.waitForAll()
                }
            } catch {
                for client in clients { await client.shutdown() }
                throw error
            }
            for client in clients { await client.shutdown() }

            let accepted = ledger.all
            #expect(accepted.count == total)
            let byToken = Dictionary(uniqueKeysWithValues: fleet.map { ($0.token!, $0) })
            try await eventually(
                "every accepted notification received by its device",
                within: .seconds(240),
                every: .milliseconds(500),
                state: "\(accepted.filter { byToken[$0.token]?.received[$0.apnsID] == nil }.count) not received"
            ) {
                accepted.allSatisfy { byToken[$0.token]?.received[$0.apnsID] != nil } ? true : nil
            }
            // Received by its own device only.
            let received = fleet.reduce(into: 0) { $0 += $1.received.count }
            #expect(received == total, "\(received) distinct notifications received by the fleet")
            // Twice only from the dead node: first received on the first connection (node B), again on a later one.
            var twice = 0
            for device in fleet {
                for (id, connections) in device.received where connections.count > 1 {
                    twice += 1
                    #expect(connections.first == 0 && connections.dropFirst().allSatisfy { $0 > 0 }, "\(id) received on connections \(connections)")
                }
            }
            // The store says delivered for each (from a surviving node's inspection API).
            try await eventually("every accepted notification delivered", within: .seconds(120), every: .milliseconds(500)) {
                var delivered = 0
                for device in fleet {
                    let states = try await DurabilityEndToEndTests.states(token: device.token!, on: nodes[0])
                    delivered += states.values.filter { $0 == "delivered" }.count
                }
                return delivered == total ? true : nil
            }
            // The devices moved to the next node on their list.
            #expect(fleet.allSatisfy { $0.connections >= 2 }, "devices that did not reconnect: \(fleet.filter { $0.connections < 2 }.count)")
            print("cluster kill -9: \(total) accepted, \(twice) received twice (sent by the dead node, acknowledgement not written)")
        }
    }
}

extension ClusterEndToEndTests {
    /// The database goes away under load and comes back: providers get `503`s meanwhile, never a hang; afterwards every
    /// `200` is delivered to the device on the other node. Cut: every node's connections dropped and new ones refused
    /// (a network failure); restarted: the server stopped as in a crash (`pg_ctl stop -m immediate`) and started again.
    @Test("PostgreSQL unreachable under load (connections cut): 503s, then recovery; every 200 delivered")
    func databaseCutUnderLoad() async throws {
        try await HeraldWorkspace.with(onPostgreSQL: true) { workspace in
            let forwarder = try TCPForwarder(toLoopbackPort: try PostgresTestServer.port())
            let url = PostgresTestServer.url(try #require(workspace.database), port: forwarder.port)
            try await Self.sendThroughAnOutage(in: workspace, options: ["--database", url]) {
                forwarder.cut()
            } end: {
                try forwarder.restore()
            }
        }
    }

    @Test("PostgreSQL restarted under load (stopped as in a crash, started again): 503s, then recovery; every 200 delivered")
    func databaseRestartUnderLoad() async throws {
        let server = try PostgresPrivateCluster()
        defer { server.remove() }
        try await HeraldWorkspace.with(database: server.url()) { workspace in
            try await Self.sendThroughAnOutage(in: workspace, options: []) {
                try server.stop()
            } end: {
                try server.start()
            }
        }
    }

    /// Two nodes, a device on the second, 300 notifications through the first from 4 senders (each retrying what was
    /// not answered `200`); `begin` once a third were accepted, `end` once a `503` was seen. Every `200` must be shown
    /// by the device, once; no answer but `200` and `503`.
    static func sendThroughAnOutage(
        in workspace: HeraldWorkspace,
        options: [String],
        begin: () throws -> Void,
        end: () throws -> Void
    ) async throws {
        let nodes = try await Self.startNodes(2, in: workspace, options: options + ["--offline-slots", "1000"])
        let credentials = try await workspace.addDevice("phone")
        let device = try await HeraldDeviceProcess.start(in: workspace, server: nodes[1], device: credentials)
        let token = try await device.token(for: HeraldWorkspace.topic)
        try await nodes[1].waitUntil(deviceID: credentials.id, isOnline: true)

        let key = try PrivateSigningKey(keyID: HeraldWorkspace.keyID, teamID: HeraldWorkspace.teamID, contentsOf: workspace.keyFile)
        var configuration = APNSProviderClient.Configuration(
            endpoint: .init(host: "127.0.0.1", port: nodes[0].cleartextPort, usesTLS: false),
            authentication: .token(key)
        )
        configuration.responseTimeout = .seconds(30)
        let client = try APNSProviderClient(configuration: configuration)
        let total = 300
        let ledger = FleetLedger()
        let refusals = StatusTally()
        let clock = ContinuousClock()
        do {
            try await withThrowingTaskGroup(of: Void.self) { group in
                for _ in 0..<4 {
                    group.addTask {
                        let deadline = clock.now + .seconds(240)
                        while let index = ledger.next(of: total) {
                            while true {
                                guard clock.now < deadline else { throw InteropError("\(index) got no 200 in time") }
                                let (apnsID, request) = Self.alert("outage \(index)", to: token)
                                let response = try await client.send(request)
                                if response.status == 200 {
                                    ledger.accepted(apnsID, token: token)
                                    break
                                }
                                refusals.add(response.status)
                                try await Task.sleep(for: .milliseconds(100))
                            }
                        }
                    }
                }
                try await eventually("a third accepted before the outage", within: .seconds(120), state: "\(ledger.count)") {
                    ledger.count >= total / 3 ? true : nil
                }
                try begin()
                try await eventually(
                    "503 while the database is away",
                    within: .seconds(60),
                    state: "\(refusals.counts), accepted \(ledger.count)"
                ) {
                    refusals.counts[503] ?? 0 > 0 ? true : nil
                }
                try end()
                try await group.waitForAll()
            }
        } catch {
            await client.shutdown()
            throw error
        }
        await client.shutdown()
        #expect(Set(refusals.counts.keys) == [503], "\(refusals.counts)")
        let accepted = ledger.all.map(\.apnsID)
        #expect(accepted.count == total)
        try await eventually(
            "every 200 shown by the device",
            within: .seconds(180),
            every: .milliseconds(500),
            state: "\(Set(accepted).subtracting(device.printedIDs).count) not shown"
        ) {
            Set(accepted).isSubset(of: Set(device.printedIDs)) ? true : nil
        }
        #expect(Set(device.printedIDs).count == device.printedIDs.count, "shown twice: \(device.describe())")
    }
}

/// A device of the fleet on the raw device link: enrols on its first connection, registers the workspace's app on each,
/// acknowledges every notification, and remembers on which of its connections (0 = the first) each arrived. When a
/// connection fails or closes it tries the next port of its list.
final class FleetDevice: Sendable {
    private struct State {
        var credentials: (id: String, secret: String)?
        var token: String?
        var connections = 0
        var received: [String: [Int]] = [:]
    }

    let name: String
    let ports: [Int]
    private let state = Mutex(State())

    init(name: String, ports: [Int]) {
        self.name = name
        self.ports = ports
    }

    var token: String? { state.withLock { $0.token } }
    var connections: Int { state.withLock { $0.connections } }
    /// The connections each notification arrived on, by lowercase apns-id.
    var received: [String: [Int]] { state.withLock { $0.received } }

    func run() async {
        var attempt = 0
        while !Task.isCancelled {
            let port = ports[attempt % ports.count]
            attempt += 1
            do {
                var configuration = DeviceLinkClient.Configuration(host: "127.0.0.1", port: port)
                configuration.requestTimeout = .seconds(30)
                let client = try await DeviceLinkClient.connect(configuration: configuration)
                do {
                    try await session(client)
                } catch {
                    await client.close()
                    throw error
                }
                await client.close()
            } catch {
                // Refused or cut: the next port.
            }
            try? await Task.sleep(for: .milliseconds(100))
        }
    }

    private func session(_ client: DeviceLinkClient) async throws {
        let hello: DeviceLinkHello = state.withLock { $0.credentials }.map { .device(id: $0.id, secret: $0.secret) } ?? .enrol(name: name)
        let welcome = try await client.hello(hello)
        if let secret = welcome.secret { state.withLock { $0.credentials = (welcome.deviceID, secret) } }
        let registration = try await client.register(bundleID: HeraldWorkspace.topic, environment: .sandbox)
        let connection = state.withLock { state in
            state.token = registration.token.hex
            defer { state.connections += 1 }
            return state.connections
        }
        for await message in client.messages {
            guard case .notification(let notification) = message else { continue }
            state.withLock { $0.received[notification.apnsID.text.lowercased(), default: []].append(connection) }
            client.acknowledge(notification.apnsID)
        }
    }
}

/// How many answers of each status the senders had, other than 200.
final class StatusTally: Sendable {
    private let state = Mutex<[Int: Int]>([:])
    func add(_ status: Int) { state.withLock { $0[status, default: 0] += 1 } }
    var counts: [Int: Int] { state.withLock { $0 } }
}

/// What the fleet's senders had accepted, in order.
final class FleetLedger: Sendable {
    private let state = Mutex((next: 0, accepted: [(apnsID: String, token: String)]()))

    func next(of total: Int) -> Int? {
        state.withLock { state in
            guard state.next < total else { return nil }
            defer { state.next += 1 }
            return state.next
        }
    }

    func accepted(_ apnsID: String, token: String) { state.withLock { $0.accepted.append((apnsID, token)) } }

    var count: Int { state.withLock { $0.accepted.count } }
    var all: [(apnsID: String, token: String)] { state.withLock { $0.accepted } }
}

/// docs/cluster/haproxy.cfg, started with its ports replaced by those of three test nodes.
@Suite("End to end: three cluster nodes behind HAProxy", .serialized, .tier(.process))
struct ClusterBalancerTests {
    @Test("A device and a provider through HAProxy; the device's node is killed: it comes back through the balancer and gets what was sent meanwhile")
    func throughHAProxy() async throws {
        let haproxy = "/usr/sbin/haproxy"
        try #require(FileManager.default.isExecutableFile(atPath: haproxy), "HAProxy is missing (bash .ci/run installs it)")
        try await HeraldWorkspace.with(onPostgreSQL: true) { workspace in
            let nodes = try await ClusterEndToEndTests.startNodes(3, in: workspace, options: ["--offline-slots", "10"])
            let front = try Interop.freePorts(3)
            let source = try String(contentsOf: Self.configurationFile, encoding: .utf8)
            var configuration =
                source
                .replacingOccurrences(of: "bind :2197", with: "bind 127.0.0.1:\(front[0])")
                .replacingOccurrences(of: "bind :2195", with: "bind 127.0.0.1:\(front[1])")
                .replacingOccurrences(of: "bind :2196", with: "bind 127.0.0.1:\(front[2])")
            for (index, node) in nodes.enumerated() {
                let base = [12195, 22195, 32195][index]
                configuration =
                    configuration
                    .replacingOccurrences(of: "127.0.0.1:\(base)\n", with: "127.0.0.1:\(node.cleartextPort)\n")
                    .replacingOccurrences(of: "127.0.0.1:\(base + 1)\n", with: "127.0.0.1:\(node.linkPort)\n")
            }
            #expect(configuration != source)
            let file = workspace.data.appendingPathComponent("haproxy.cfg")
            try configuration.write(to: file, atomically: true, encoding: .utf8)
            let checked = try await ExternalProcess.run(haproxy, ["-c", "-f", file.path])
            #expect(checked.succeeded, "\(checked)")
            let balancer = try ExternalProcess(haproxy, ["-f", file.path, "-db"])
            defer { balancer.killAndWait() }

            let credentials = try await workspace.addDevice("phone")
            let device = try await HeraldDeviceProcess.start(in: workspace, url: "ws://127.0.0.1:\(front[2])/device-link", device: credentials)
            let token = try await device.token(for: HeraldWorkspace.topic)
            let providerURL = "http://127.0.0.1:\(front[1])"
            let before = try await Self.send(workspace, providerURL, token, "before the kill")
            _ = try await device.waitForNotification(before)

            // The node the device is connected to.
            let holding = try await nodes[0].nodes(deviceID: credentials.id)
            #expect(holding.count == 1, "\(holding)")
            let index = try #require(ClusterEndToEndTests.nodeNames.firstIndex { $0 == holding.first }, "\(holding)")
            let dead = nodes[index]
            dead.crash()
            let alive = nodes.filter { $0 !== dead }

            var sent: [String] = []
            for index in 0..<3 { sent.append(try await Self.send(workspace, providerURL, token, "after the kill \(index)")) }
            for id in sent { _ = try await device.waitForNotification(id) }
            #expect(Set(device.printedIDs) == Set(([before] + sent).map { $0.lowercased() }), "\(device.describe())")
            #expect(device.printedIDs.count == 4, "\(device.describe())")
            let traced = try await alive[0].waitForNotification(sent[2], "delivered") { $0.state == "delivered" }
            let node = traced.detail(of: "sent")?["node"] as? String
            #expect(node != nil && node != ClusterEndToEndTests.nodeNames[nodes.firstIndex { $0 === dead }!], "\(traced)")
        }
    }

    static var configurationFile: URL {
        URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
            .deletingLastPathComponent().appendingPathComponent("docs/cluster/haproxy.cfg")
    }

    /// `herald send --server URL` with the workspace's key: the `apns-id` of its `200`, retrying what a dying node
    /// refused (the balancer notices a dead node within two health checks).
    static func send(_ workspace: HeraldWorkspace, _ url: String, _ token: String, _ alert: String) async throws -> String {
        var last: ProcessResult?
        return try await eventually(
            "herald send through the balancer accepted",
            within: .seconds(20),
            every: .milliseconds(500),
            state: "last: \(last.map { "\($0)" } ?? "")"
        ) { () -> String? in
            let result = try await workspace.cli([
                "send", "--server", url, "--token", token, "--topic", HeraldWorkspace.topic, "--json", "--alert", alert,
            ])
            last = result
            guard result.succeeded, let answer = result.lines.first.flatMap(HeraldExecutableInteropTests.jsonObject),
                answer["status"] as? Int == 200
            else { return nil }
            return answer["apnsID"] as? String
        }
    }
}
