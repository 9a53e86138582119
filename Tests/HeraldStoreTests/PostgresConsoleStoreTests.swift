import Foundation
import HeraldCore
import HeraldPostgres
import HeraldStore
import HeraldTestSupport
import HeraldTestTiers
import Synchronization
import Testing

/// What the web consoles of a cluster's nodes share in PostgreSQL (docs/cluster.md, "The console"): each device's newest
/// screen, and console messages every node receives.
@Suite("PostgreSQL store: the console across nodes", .tier(.process))
struct PostgresConsoleStoreTests {
    let nodes = PostgresClusterStoreTests()

    @Test("A screen saved by one node is read by another; an older one never replaces a newer; an unknown device is skipped")
    func screens() async throws {
        try await nodes.withTwoNodes { a, b, _ in
            let phone = try await a.addDevice(name: "phone").device.id
            let tablet = try await a.addDevice(name: "tablet").device.id
            #expect(try await b.sharedScreen(deviceID: phone) == nil)

            let first = SharedScreen(deviceID: phone, json: Array(#"{"name":"first"}"#.utf8), updatedAtMilliseconds: 1_000, nodeID: "b")
            let unknown = SharedScreen(deviceID: UUID().uuidString.lowercased(), json: Array("{}".utf8), updatedAtMilliseconds: 1_000, nodeID: "b")
            try await b.saveScreens([first, unknown])
            #expect(try await a.sharedScreen(deviceID: phone) == first)
            #expect(try await a.sharedScreen(deviceID: phone.uppercased()) == first)
            #expect(try await a.sharedScreen(deviceID: unknown.deviceID) == nil)

            // The newest of a batch; a later, older screen (a node whose clock is behind) changes nothing.
            let second = SharedScreen(deviceID: phone, json: Array(#"{"name":"second"}"#.utf8), updatedAtMilliseconds: 3_000, nodeID: "b")
            try await b.saveScreens([second, SharedScreen(deviceID: phone, json: Array("{}".utf8), updatedAtMilliseconds: 2_000, nodeID: "b")])
            try await a.saveScreens([SharedScreen(deviceID: phone, json: Array(#"{"name":"stale"}"#.utf8), updatedAtMilliseconds: 2_500, nodeID: "a")]
            )
            #expect(try await a.sharedScreen(deviceID: phone) == second)
            let tabletScreen = SharedScreen(deviceID: tablet, json: Array(#"{"name":"tablet"}"#.utf8), updatedAtMilliseconds: 4_000, nodeID: "a")
            try await a.saveScreens([tabletScreen])
            #expect(try await b.sharedScreenTimes(deviceID: nil) == [phone: 3_000, tablet: 4_000])
            #expect(try await b.sharedScreenTimes(deviceID: tablet) == [tablet: 4_000])
        }
    }

    @Test("A console message reaches every node's listener, in the order sent; one over the limit is refused")
    func messages() async throws {
        try await nodes.withTwoNodes { a, b, _ in
            let received = Mutex<[String]>([])
            let stream = a.consoleMessages()
            let listener = Task { for await message in stream { received.withLock { $0.append(message) } } }
            defer { listener.cancel() }
            // The listener may start after the first messages: send until one arrives.
            var index = 0
            try await eventually("a message from b arrives", within: .seconds(20), every: .milliseconds(50)) {
                try await b.sendConsoleMessage("ping \(index)")
                index += 1
                return !received.withLock { $0.isEmpty }
            }
            let later = (0..<3).map { "from b \($0) " + String(repeating: "é", count: 100) }
            for message in later { try await b.sendConsoleMessage(message) }
            try await a.sendConsoleMessage("from a")
            try await eventually("a's own message arrives", within: .seconds(20)) { received.withLock { $0.last } == "from a" }
            #expect(Array(received.withLock { $0 }.suffix(4)) == later + ["from a"])

            #expect(b.maximumConsoleMessageBytes == 7_900)
            await #expect(throws: StoreError.invalidRecord) {
                try await b.sendConsoleMessage(String(repeating: "x", count: 7_901))
            }
            try await b.sendConsoleMessage(String(repeating: "x", count: 7_900))
            try await eventually("the longest message arrives", within: .seconds(20)) { received.withLock { $0.last?.count } == 7_900 }
        }
    }
}
