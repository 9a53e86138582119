import HeraldCore
import HeraldDeviceLink
import NIOCore

/// Simulated devices on the device link, all in this process: each a lean ``DeviceLinkClient`` (a channel and a
/// handler on a shared event loop, no thread of its own) that enrolled itself and registered one app.
struct DeviceFleet: Sendable {
    /// One connected device and its app's token.
    struct Device: Sendable {
        let client: DeviceLinkClient
        let token: DeviceToken
    }

    /// The app every device registers (`com.example.bench`, sandbox).
    static let bundleID = "com.example.bench"

    private(set) var devices: [Device] = []
    private let configuration: DeviceLinkClient.Configuration
    private let group: any EventLoopGroup
    private let concurrency: Int

    /// An empty fleet for the server at `host:port`; `concurrency` devices connect at the same time.
    init(host: String, port: Int, group: any EventLoopGroup, concurrency: Int) {
        var configuration = DeviceLinkClient.Configuration(host: host, port: port)
        // Enrolment and registration each wait for a durable write; under a connection storm they queue.
        configuration.requestTimeout = .seconds(60)
        configuration.connectTimeout = .seconds(30)
        self.configuration = configuration
        self.group = group
        self.concurrency = max(1, concurrency)
    }

    /// Connects devices until there are `count`: each says `hello {"enrol": "bench-N"}` and registers the app.
    ///
    /// A device whose connection or enrolment fails is tried again twice; the third failure is thrown.
    mutating func grow(to count: Int) async throws {
        let first = devices.count
        guard count > first else { return }
        let configuration = self.configuration
        let group = self.group
        var connected = [Device?](repeating: nil, count: count - first)
        try await withThrowingTaskGroup(of: (Int, Device).self) { tasks in
            var next = first
            func startNext() {
                let index = next
                next += 1
                tasks.addTask { (index, try await Self.connectDevice(number: index, configuration: configuration, group: group)) }
            }
            while next < count, next - first < concurrency { startNext() }
            var done = 0
            while let (index, device) = try await tasks.next() {
                connected[index - first] = device
                done += 1
                if done % 1000 == 0 { say("connected \(first + done) of \(count) devices") }
                if next < count { startNext() }
            }
        }
        devices += connected.compactMap { $0 }
    }

    private static func connectDevice(
        number: Int,
        configuration: DeviceLinkClient.Configuration,
        group: any EventLoopGroup
    ) async throws -> Device {
        var attempt = 1
        while true {
            do {
                let client = try await DeviceLinkClient.connect(configuration: configuration, eventLoopGroup: group)
                do {
                    try await client.hello(.enrol(name: "bench-\(number)"))
                    let registration = try await client.register(bundleID: bundleID, environment: .sandbox)
                    return Device(client: client, token: registration.token)
                } catch {
                    await client.close()
                    throw error
                }
            } catch {
                guard attempt < 3 else { throw BenchFailure("device \(number) could not connect: \(error)") }
                attempt += 1
                try await Task.sleep(for: .milliseconds(200 * attempt))
            }
        }
    }

    /// Receives on every device until its link closes: records each notification in `ledger` and acknowledges it.
    ///
    /// One child task per device, waiting on the client's message stream: a receipt is stamped when that task
    /// takes the frame, one hop after the event loop decoded it.
    func receive(into ledger: DeliveryLedger, broadcasts: BroadcastLedger? = nil) async {
        await withDiscardingTaskGroup { tasks in
            for device in devices {
                tasks.addTask {
                    for await message in device.client.messages {
                        switch message {
                        case .notification(let notification):
                            ledger.received(notification.apnsID, at: DeliveryLedger.now())
                            device.client.acknowledge(notification.apnsID)
                        case .error:
                            ledger.linkError()
                        case .broadcast(let broadcast):
                            broadcasts?.received(broadcast.requestID, at: DeliveryLedger.now())
                        case .welcome, .registered, .unregistered, .interact, .activityTokenRegistered, .activityTokenRetired,
                            .channelSubscribed, .channelUnsubscribed, .webPushSubscribed, .webPushUnsubscribed:
                            break
                        }
                    }
                    ledger.linkClosed()
                }
            }
        }
    }

    /// Subscribes every device's app to `channel` (`subscribe-channel`), a bounded number at a time.
    func subscribe(to channel: String) async throws {
        let devices = self.devices
        let concurrency = self.concurrency
        try await withThrowingTaskGroup(of: Void.self) { tasks in
            var next = 0
            func startNext() {
                let device = devices[next]
                next += 1
                tasks.addTask { _ = try await device.client.subscribeChannel(channel, bundleID: Self.bundleID, environment: .sandbox) }
            }
            while next < devices.count, next < concurrency { startNext() }
            while try await tasks.next() != nil {
                if next < devices.count { startNext() }
            }
        }
    }

    /// Closes every link (WebSocket close 1000).
    func close() async {
        await withDiscardingTaskGroup { tasks in
            for device in devices {
                tasks.addTask { await device.client.close(timeout: .seconds(5)) }
            }
        }
    }
}
