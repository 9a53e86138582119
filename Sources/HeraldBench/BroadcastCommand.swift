import ArgumentParser
import Foundation
import HeraldAuth
import HeraldCore
import HeraldProviderClient
import NIOCore
import NIOPosix
import Synchronization

/// `herald-bench broadcast`: D devices subscribed to one channel, a provider broadcasting on it; for each broadcast,
/// the time from the request to its `200` and to each device's receipt, and the server's CPU time (bench/broadcast).
struct BroadcastCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "broadcast",
        abstract: "Subscribe devices to one channel, broadcast on it, measure request-to-receipt on every device; one JSON line per broadcast."
    )

    @OptionGroup var server: ServerOptions

    @OptionGroup var provider: ProviderOptions

    @Option(help: "Devices subscribed to the channel.")
    var devices = 10_000

    @Option(help: "Broadcasts measured (one at a time; the table shows medians).")
    var broadcasts = 10

    @Option(name: .customLong("warmup"), help: "Unrecorded broadcasts first.")
    var warmup = 2

    @Option(name: .customLong("pause-ms"), help: "The pause after each broadcast's last receipt.")
    var pauseMilliseconds = 500

    @Option(name: .customLong("drain-seconds"), help: "How long a broadcast waits for its last receipt.")
    var drainSeconds = 20.0

    @Option(name: .customLong("storage-policy"), help: "The channel's message-storage-policy (0 or 1).")
    var storagePolicy = 0

    @Option(help: "Append one JSON line per measured broadcast to this file.")
    var json: String?

    /// One measured broadcast.
    struct Record: Codable, Sendable {
        var run: Int
        var devices: Int
        var received: Int
        /// Request to `200`, milliseconds.
        var answerMilliseconds: Double
        /// Request to each device's receipt.
        var receipt: Percentiles
        /// Request to the last device's receipt, milliseconds (`max` of `receipt`).
        var lastMilliseconds: Double
        /// The server's CPU time during the broadcast (request to last receipt), milliseconds.
        var serverCPUMilliseconds: Double?
        var storagePolicy: Int
    }

    func run() async throws {
        let key = try provider.key()
        guard storagePolicy == 0 || storagePolicy == 1 else { throw BenchFailure("--storage-policy must be 0 or 1") }
        let group = MultiThreadedEventLoopGroup(numberOfThreads: server.eventLoops ?? System.coreCount)
        let endpoint = APNSProviderClient.Endpoint(host: server.host, port: provider.cleartextPort, usesTLS: false)
        let client = try APNSProviderClient(configuration: .init(endpoint: endpoint, authentication: .token(key)), eventLoopGroup: group)
        let created = try await client.createChannel(bundleID: DeviceFleet.bundleID, storagePolicy: .init(rawValue: storagePolicy))
        guard created.status == 201, let channel = created.channelID else {
            throw BenchFailure("the server refused the channel: \(created.status) \(created.reason?.rawValue ?? "")")
        }

        var fleet = DeviceFleet(host: server.host, port: server.linkPort, group: group, concurrency: server.connectConcurrency)
        let connectStart = ContinuousClock.now
        try await fleet.grow(to: devices)
        try await fleet.subscribe(to: channel)
        say("\(devices) devices connected and subscribed in \(String(format: "%.1f", (ContinuousClock.now - connectStart).inSeconds)) s")

        let ledger = BroadcastLedger()
        let receiving = fleet
        try await withThrowingTaskGroup(of: Void.self) { tasks in
            tasks.addTask { await receiving.receive(into: DeliveryLedger(), broadcasts: ledger) }
            defer { tasks.cancelAll() }
            for run in 1...(warmup + broadcasts) {
                let record = try await measure(run: run, channel: channel, client: client, ledger: ledger)
                let phase = run <= warmup ? "warm-up" : "run \(run - warmup)"
                say(
                    "\(phase): 200 in \(String(format: "%.2f", record.answerMilliseconds)) ms, \(record.received)/\(devices) received, "
                        + "p50 \(String(format: "%.1f", record.receipt.p50)) ms, p99 \(String(format: "%.1f", record.receipt.p99)) ms, "
                        + "last \(String(format: "%.1f", record.lastMilliseconds)) ms, server CPU \(record.serverCPUMilliseconds.map { String(format: "%.0f ms", $0) } ?? "—")"
                )
                if run > warmup, let json {
                    var measured = record
                    measured.run = run - warmup
                    try appendJSONLine(measured, to: json)
                }
                try await Task.sleep(for: .milliseconds(pauseMilliseconds))
            }
            await receiving.close()
        }
        await client.shutdown()
        try await group.shutdownGracefully()
    }

    private func measure(run: Int, channel: String, client: APNSProviderClient, ledger: BroadcastLedger) async throws -> Record {
        let requestID = UUID().uuidString.lowercased()
        ledger.start(requestID, expected: devices)
        let payload = #"{"aps":{"event":"update","timestamp":\#(1_700_000_000 + run),"content-state":{"score":"\#(run)-0"}}}"#
        let cpuBefore = server.serverPID.flatMap(ProcessSample.read(pid:))?.cpuSeconds
        let start = DeliveryLedger.now()
        let answer = try await client.broadcast(
            APNSBroadcastRequest(bundleID: DeviceFleet.bundleID, channelID: channel, payload: Array(payload.utf8), requestID: requestID)
        )
        let answered = DeliveryLedger.now()
        guard answer.status == 200 else {
            throw BenchFailure("the server refused broadcast \(run): \(answer.status) \(answer.reason?.rawValue ?? "")")
        }
        let deadline = ContinuousClock.now + .seconds(drainSeconds)
        while ledger.count(requestID) < devices, ContinuousClock.now < deadline {
            try await Task.sleep(for: .milliseconds(2))
        }
        let cpuAfter = server.serverPID.flatMap(ProcessSample.read(pid:))?.cpuSeconds
        var latencies = ledger.finish(requestID).map { $0 >= start ? $0 - start : 0 }
        let received = latencies.count
        let receipt = Percentiles(nanoseconds: &latencies)
        return Record(
            run: run,
            devices: devices,
            received: received,
            answerMilliseconds: Double(answered - start) / 1e6,
            receipt: receipt,
            lastMilliseconds: receipt.max,
            serverCPUMilliseconds: zip(cpuBefore, cpuAfter).map { ($1 - $0) * 1000 },
            storagePolicy: storagePolicy
        )
    }
}

/// When each device received each broadcast, by `apns-request-id` (the one being measured only).
final class BroadcastLedger: Sendable {
    private struct State {
        var requestID = ""
        var receipts: [UInt64] = []
        var strays = 0
    }

    private let state = Mutex(State())

    /// Starts counting receipts of `requestID`; anything else from now on is a stray.
    func start(_ requestID: String, expected: Int) {
        state.withLock { state in
            state.requestID = requestID
            state.receipts = []
            state.receipts.reserveCapacity(expected)
        }
    }

    /// A device received a broadcast at `time` (``DeliveryLedger/now()``).
    func received(_ requestID: String, at time: UInt64) {
        state.withLock { state in
            if requestID == state.requestID { state.receipts.append(time) } else { state.strays += 1 }
        }
    }

    /// How many devices received `requestID` so far.
    func count(_ requestID: String) -> Int {
        state.withLock { $0.requestID == requestID ? $0.receipts.count : 0 }
    }

    /// The receipt times of `requestID`; counting stops.
    func finish(_ requestID: String) -> [UInt64] {
        state.withLock { state in
            defer { state.requestID = "" }
            return state.requestID == requestID ? state.receipts : []
        }
    }
}

private func zip(_ first: Double?, _ second: Double?) -> (Double, Double)? {
    guard let first, let second else { return nil }
    return (first, second)
}
