import Foundation
import HeraldCore
import HeraldDeviceHost
import HeraldDeviceLink
import HeraldSimulator
import HeraldTestSupport
import HeraldTestTiers
import HeraldTesting
import Synchronization
import Testing

/// A device has one link at a time (docs/device-link.md, "hello"): the older link closes with 4000 and its
/// ``LinkedDevice`` stops instead of reconnecting, which would close the newer link in turn.
@Suite("Linked device: a link a newer one replaced", .tier(.inProcess))
struct LinkedDeviceReplacedTests {
    @Test("a newer link with the device's credentials stops the linked device with replaced; the newer link stays")
    func replacedStops() async throws {
        var options = HeraldTestServer.Options()
        options.tls = false
        try await withHeraldServer(options) { server in
            let credentials = try await server.server.store.addDevice(name: "twin")
            let port = try #require(URL(string: server.deviceLinkURL)?.port)
            var link = DeviceLinkClient.Configuration(host: "127.0.0.1", port: port)
            link.path = "/device-link"
            let hello = DeviceLinkHello.device(id: credentials.device.id, secret: credentials.secret)
            var configuration = LinkedDevice.Configuration(link: link, hello: hello)
            configuration.maximumBackoff = .milliseconds(200)
            let linked = LinkedDevice(
                device: try await SimulatedDevice(manifest: DeviceManifest(name: "twin", apps: [])),
                configuration: configuration
            )
            let ended = RunEnd()
            try await withThrowingTaskGroup(of: Void.self) { tasks in
                tasks.addTask {
                    do { try await linked.run() } catch { ended.record(error) }
                }
                defer { tasks.cancelAll() }
                try await eventually("the linked device connects") { linked.isConnected }
                let newer = try await DeviceLinkClient.connect(configuration: link)
                _ = try await newer.hello(hello)
                // It stops for good (cancelling it would end it with CancellationError instead).
                try await eventually("the linked device stops") { ended.error != nil }
                #expect(ended.error as? DeviceLinkClientError == .replaced)
                #expect(!linked.isConnected)
                // The newer link is still the device's.
                try await newer.ping()
                #expect(await newer.close().code == 1000)
            }
        }
    }
}

/// How a ``LinkedDevice/run()`` ended: the error it threw, once it did.
private final class RunEnd: Sendable {
    private let thrown = Mutex<(any Error)?>(nil)

    var error: (any Error)? { thrown.withLock { $0 } }

    func record(_ error: any Error) {
        thrown.withLock { $0 = error }
    }
}
