import Foundation
import HeraldServiceWorker

/// A service worker script in a folder of its own, and a host for it (`https://example.com`).
struct ServiceWorkerFixture {
    /// The folder of `Examples/WebPush`.
    static let examples = URL(fileURLWithPath: #filePath).deletingLastPathComponent().appendingPathComponent("../../Examples/WebPush")
        .standardizedFileURL

    let folder: URL
    let host: ServiceWorkerHost

    /// A host for `Examples/WebPush/<name>`.
    init(example name: String, budget: Duration = .seconds(30)) {
        folder = Self.examples
        var configuration = ServiceWorkerConfiguration(scriptPath: Self.examples.appendingPathComponent(name).path, origin: "https://example.com")
        configuration.timeBudget = budget
        host = ServiceWorkerHost(configuration: configuration)
    }

    /// A host for `source` written as `sw.js`, with `files` beside it.
    init(
        source: String,
        files: [String: String] = [:],
        budget: Duration = .seconds(30),
        adjust: (inout ServiceWorkerConfiguration) -> Void = { _ in }
    ) throws {
        folder = FileManager.default.temporaryDirectory.appendingPathComponent("herald-sw-test-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        try source.write(to: folder.appendingPathComponent("sw.js"), atomically: true, encoding: .utf8)
        for (name, text) in files { try text.write(to: folder.appendingPathComponent(name), atomically: true, encoding: .utf8) }
        var configuration = ServiceWorkerConfiguration(scriptPath: folder.appendingPathComponent("sw.js").path, origin: "https://example.com")
        configuration.timeBudget = budget
        adjust(&configuration)
        host = ServiceWorkerHost(configuration: configuration)
    }

    /// Stops the host and removes the folder a script was written to.
    func stop() async {
        await host.stop()
        if folder != Self.examples { try? FileManager.default.removeItem(at: folder) }
    }

    /// The push's JSON as bytes.
    static func json(_ text: String) -> [UInt8] { Array(text.utf8) }
}
