import HeraldCore
import HeraldDeviceLink
import NIOCore

/// Simulated devices on the device link (a ``DeviceFleet``), each holding one web app subscribed to the bench site:
/// the devices enrol and register the bench app as every benchmark's do, then subscribe their web app.
struct WebAppFleet: Sendable {
    /// The devices; each also has the APNs token of the bench app, the reference's target.
    private(set) var devices: DeviceFleet
    /// One web app per device, in the devices' order.
    private(set) var webApps: [BenchWebApp] = []

    /// What a device does with a web push it receives.
    enum Handling: Sendable {
        /// Acknowledge it at once: the throughput phase measures the push service, not the devices.
        case acknowledge
        /// Decrypt and read it, record it in the ledger as shown, report `decrypted` and `shown` as a web app does,
        /// then acknowledge it.
        case show(ShownLedger)
    }

    /// An empty fleet for the server at `host:port`; `concurrency` devices connect (and subscribe) at the same time.
    init(host: String, port: Int, group: any EventLoopGroup, concurrency: Int) {
        devices = DeviceFleet(host: host, port: port, group: group, concurrency: concurrency)
    }

    /// Connects `count` devices and subscribes a web app on each with the site's key `applicationServerKey`.
    mutating func grow(to count: Int, applicationServerKey: String, concurrency: Int) async throws {
        try await devices.grow(to: count)
        let fleet = devices.devices
        var apps = [BenchWebApp?](repeating: nil, count: fleet.count)
        try await withThrowingTaskGroup(of: (Int, BenchWebApp).self) { tasks in
            var next = 0
            func startNext() {
                let index = next
                next += 1
                tasks.addTask {
                    do {
                        return (index, try await BenchWebApp.subscribe(on: fleet[index], applicationServerKey: applicationServerKey))
                    } catch {
                        throw BenchFailure("web app \(index) could not subscribe: \(error)")
                    }
                }
            }
            while next < fleet.count, next < max(1, concurrency) { startNext() }
            while let (index, app) = try await tasks.next() {
                apps[index] = app
                if next < fleet.count { startNext() }
            }
        }
        webApps = apps.compactMap { $0 }
    }

    /// Receives on every device until its link closes: web pushes as `handling` says, anything else acknowledged.
    /// An `error` frame or a closed link is counted in `problems`.
    func receive(_ handling: Handling, problems: DeliveryLedger) async {
        await withDiscardingTaskGroup { tasks in
            for app in webApps {
                tasks.addTask {
                    let client = app.device.client
                    for await message in client.messages {
                        switch message {
                        case .notification(let notification):
                            if case .show(let ledger) = handling, notification.pushType == .webPush {
                                Self.show(notification, in: app, ledger: ledger)
                            }
                            client.acknowledge(notification.apnsID)
                        case .error:
                            problems.linkError()
                        case .welcome, .registered, .unregistered, .interact, .activityTokenRegistered, .activityTokenRetired,
                            .channelSubscribed, .channelUnsubscribed, .webPushSubscribed, .webPushUnsubscribed, .broadcast:
                            break
                        }
                    }
                    problems.linkClosed()
                }
            }
        }
    }

    /// A web app's handling of one message: stamped as soon as it knows what it would show, then reported.
    private static func show(_ notification: DeviceLinkNotification, in app: BenchWebApp, ledger: ShownLedger) {
        switch app.open(notification) {
        case .success(let message):
            ledger.shown(message, at: DeliveryLedger.now())
            let detail = #"{"title":"\#(BenchMessage.title)","source":"declarative"}"#
            app.device.client.report(DeviceLinkReport(apnsID: notification.apnsID, event: .decrypted))
            app.device.client.report(DeviceLinkReport(apnsID: notification.apnsID, event: .shown, detail: Array(detail.utf8)))
        case .failure(let failure):
            ledger.notShown(failure)
            let detail = #"{"reason":\#(JSONString.quoted(failure.reason))}"#
            app.device.client.report(DeviceLinkReport(apnsID: notification.apnsID, event: .notShown, detail: Array(detail.utf8)))
        }
    }

    /// Closes every link (WebSocket close 1000).
    func close() async {
        await devices.close()
    }
}
