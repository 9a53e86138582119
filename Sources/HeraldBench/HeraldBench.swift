import ArgumentParser
import Foundation
import HeraldAuth

/// `herald-bench`: the delivery benchmark's load generator (bench/delivery/README.md).
///
/// It runs against a `herald serve` started by `bench/delivery/run.sh`: simulated devices on the device link and
/// a provider on the HTTP/2 API, in this one process, so that the latency from the provider's request to the
/// device's receipt is read on one monotonic clock.
@main
struct HeraldBench: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "herald-bench",
        abstract: "Benchmark Herald's delivery: provider request to device receipt, rate sweep, idle memory; the engine alone.",
        subcommands: [
            DeliveryCommand.self, IdleCommand.self, ReportCommand.self, BroadcastCommand.self, EngineCommand.self,
            WebPushCommand.self,
        ]
    )
}

/// Where the server under test listens, and which process it is.
struct ServerOptions: ParsableArguments {
    @Option(help: "The server's address.")
    var host = "127.0.0.1"

    @Option(name: .customLong("link-port"), help: "The web port (device link).")
    var linkPort = 2196

    @Option(name: .customLong("server-pid"), help: "The server's process id, for its CPU time, memory and open files (/proc).")
    var serverPID: Int32?

    @Option(name: .customLong("connect-concurrency"), help: "Devices connecting (and enrolling) at the same time.")
    var connectConcurrency = 64

    @Option(name: .customLong("event-loops"), help: "Event-loop threads of the devices and the provider (default: one per usable core).")
    var eventLoops: Int?
}

/// The provider's port and signing key.
struct ProviderOptions: ParsableArguments {
    @Option(name: .customLong("h2c-port"), help: "The provider API's cleartext port (h2c prior knowledge).")
    var cleartextPort = 2195

    @Option(help: "The provider's .p8 signing key (registered with the server).")
    var p8: String

    @Option(name: .customLong("key-id"), help: "The key id (kid).")
    var keyID: String

    @Option(name: .customLong("team-id"), help: "The team id (iss).")
    var teamID: String

    /// The key, or a one-line failure.
    func key() throws -> PrivateSigningKey {
        do {
            return try PrivateSigningKey(keyID: keyID, teamID: teamID, contentsOf: URL(fileURLWithPath: p8))
        } catch {
            throw BenchFailure("cannot read the key \(p8): \(error)")
        }
    }
}

/// A failure reported as one line and exit status 1.
struct BenchFailure: Error, CustomStringConvertible {
    var description: String

    init(_ description: String) {
        self.description = description
    }
}

/// Progress for people, on standard error.
func say(_ text: String) {
    FileHandle.standardError.write(Data("[herald-bench] \(text)\n".utf8))
}

/// Appends one JSON line to a file, creating it when needed.
func appendJSONLine(_ value: some Encodable, to path: String) throws {
    let encoder = JSONEncoder()
    encoder.outputFormatting = [.sortedKeys]
    var line = try encoder.encode(value)
    line.append(UInt8(ascii: "\n"))
    if !FileManager.default.fileExists(atPath: path) {
        guard FileManager.default.createFile(atPath: path, contents: nil) else { throw BenchFailure("cannot create \(path)") }
    }
    guard let file = FileHandle(forWritingAtPath: path) else { throw BenchFailure("cannot write \(path)") }
    defer { try? file.close() }
    try file.seekToEnd()
    try file.write(contentsOf: line)
}
