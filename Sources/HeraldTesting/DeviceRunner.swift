import HeraldDeviceHost

/// Runs the test server's linked devices as child tasks of the server's scope, and cancels them all at the end (their
/// web apps' service workers stopped).
final class DeviceRunner: Sendable {
    private let stream: AsyncStream<LinkedDevice>
    private let input: AsyncStream<LinkedDevice>.Continuation

    init() {
        (stream, input) = AsyncStream.makeStream(of: LinkedDevice.self)
    }

    /// Starts a device (in ``run()``'s task group).
    func start(_ device: LinkedDevice) {
        input.yield(device)
    }

    /// Runs each started device until ``stop()``, then cancels them and returns when they have stopped.
    func run() async {
        await withDiscardingTaskGroup { tasks in
            for await device in stream {
                tasks.addTask {
                    try? await device.run()
                    // A web app's service worker runs in a Node process of its own: it ends with the device.
                    for app in device.webApps { await app.stop() }
                }
            }
            tasks.cancelAll()
        }
    }

    /// Ends ``run()``.
    func stop() {
        input.finish()
    }
}
