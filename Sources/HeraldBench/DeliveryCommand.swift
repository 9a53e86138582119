import ArgumentParser
import Foundation
import HeraldAuth
import HeraldProviderClient
import NIOCore
import NIOPosix

/// `herald-bench delivery`: D devices, a provider at steady rates; latency from request to receipt, loss, rates.
struct DeliveryCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "delivery",
        abstract: "Connect devices, post at steady rates, measure request-to-receipt latency; one JSON line per run."
    )

    @OptionGroup var server: ServerOptions

    @OptionGroup var provider: ProviderOptions

    @Option(help: "Connected devices.")
    var devices = 1000

    @Option(name: .customLong("steady-rate"), help: "The fixed moderate rate, notifications per second (0 skips it).")
    var steadyRate = 500.0

    @Option(help: "The sweep's rates, comma-separated, ascending; it stops after the first rate that fails.")
    var rates = "1000,2000,2500,3000,3500,4000,5000,6000,8000,10000,12000"

    @Option(name: .customLong("overload-rate"), help: "A rate above the sweep, run once per run to see acceptance against delivery (0 skips it).")
    var overloadRate = 0.0

    @Option(help: "Seconds the provider sends in each run.")
    var seconds = 10.0

    @Option(help: "Runs per rate (the table shows medians).")
    var runs = 3

    @Option(name: .customLong("warmup-seconds"), help: "An unrecorded first run at the steady rate.")
    var warmupSeconds = 3.0

    @Option(help: "Provider HTTP/2 connections.")
    var connections = 4

    @Option(name: .customLong("max-in-flight"), help: "Requests waiting for an answer at most; beyond, sending falls behind.")
    var maximumInFlight = 4000

    @Option(name: .customLong("drain-seconds"), help: "How long a run waits after sending for the last receipts.")
    var drainSeconds = 15.0

    @Option(name: .customLong("pause-seconds"), help: "The pause between runs.")
    var pauseSeconds = 2.0

    @Option(name: .customLong("p99-limit-ms"), help: "A rate passes when its median p99 is under this.")
    var p99LimitMilliseconds = 50.0

    @Option(name: .customLong("busy-cores"), help: "Other processes' CPU (cores) above which a failing sweep rate is measured again.")
    var busyCores = 0.3

    @Option(name: .customLong("busy-retries"), help: "How many times a sweep rate that failed on a busy machine is measured again.")
    var busyRetries = 2

    @Option(help: "Append one JSON line per run to this file.")
    var json: String?

    @Flag(
        help: """
            Enrol the devices, then close their links before the runs: every notification is stored for an offline \
            token and each run is judged by the 200's latency (the paced acceptance to compare delivery with).
            """
    )
    var offline = false

    func run() async throws {
        let key = try provider.key()
        let sweep = try rates.split(separator: ",").map { text -> Double in
            guard let rate = Double(text.trimmingCharacters(in: .whitespaces)), rate > 0 else { throw BenchFailure("bad rate '\(text)'") }
            return rate
        }
        let group = MultiThreadedEventLoopGroup(numberOfThreads: server.eventLoops ?? System.coreCount)
        var fleet = DeviceFleet(host: server.host, port: server.linkPort, group: group, concurrency: server.connectConcurrency)
        let connectStart = ContinuousClock.now
        try await fleet.grow(to: devices)
        say("\(devices) devices connected in \(String(format: "%.1f", (ContinuousClock.now - connectStart).inSeconds)) s")
        if offline {
            await fleet.close()
            say("\(devices) devices closed their links: their tokens are offline")
        }

        var clients: [APNSProviderClient] = []
        for _ in 0..<max(1, connections) {
            let endpoint = APNSProviderClient.Endpoint(host: server.host, port: provider.cleartextPort, usesTLS: false)
            let client = try APNSProviderClient(configuration: .init(endpoint: endpoint, authentication: .token(key)), eventLoopGroup: group)
            try await client.connect()
            clients.append(client)
        }
        let load = SteadyLoad(
            clients: clients,
            tokens: fleet.devices.map(\.token.hex),
            payload: Self.payload,
            topic: DeviceFleet.bundleID,
            maximumInFlight: maximumInFlight
        )
        let ledger = DeliveryLedger()
        let receivingFleet = fleet
        try await withThrowingTaskGroup(of: Void.self) { tasks in
            if !offline { tasks.addTask { await receivingFleet.receive(into: ledger) } }
            defer { tasks.cancelAll() }
            try await measureAll(load: load, ledger: ledger, sweep: sweep)
            if !offline { await receivingFleet.close() }
            try await tasks.waitForAll()
        }
        for client in clients { await client.shutdown() }
        try await group.shutdownGracefully()
    }

    private func measureAll(load: SteadyLoad, ledger: DeliveryLedger, sweep: [Double]) async throws {
        var runNumber: UInt32 = 0
        func measure(_ phase: String, rate: Double, seconds: Double, run: Int) async throws -> RunRecord {
            runNumber += 1
            let record = await measureRun(runNumber, phase: phase, rate: rate, seconds: seconds, run: run, load: load, ledger: ledger)
            say(Self.summary(record))
            try await Task.sleep(for: .seconds(pauseSeconds))
            return record
        }
        func write(_ records: [RunRecord]) throws {
            guard let json else { return }
            for record in records { try appendJSONLine(record, to: json) }
        }
        if warmupSeconds > 0 {
            _ = try await measure("warmup", rate: steadyRate > 0 ? steadyRate : sweep.first ?? 500, seconds: warmupSeconds, run: 1)
        }
        if steadyRate > 0 {
            for run in 1...max(1, runs) { try write([try await measure("steady", rate: steadyRate, seconds: seconds, run: run)]) }
        }
        for rate in sweep {
            var busyAttempts = 0
            var passed = false
            while true {
                var records: [RunRecord] = []
                for run in 1...max(1, runs) { records.append(try await measure("sweep", rate: rate, seconds: seconds, run: run)) }
                let p99 = median(records.map(\.judgedLatency.p99)) ?? .infinity
                passed = p99 < p99LimitMilliseconds && records.allSatisfy(\.isLossless) && records.filter(\.keptPace).count * 2 > records.count
                let others = median(records.compactMap(\.otherCores)) ?? 0
                // A rate that fails while the rest of the machine was busy says little about the server: measure it again.
                if !passed, others > busyCores, busyAttempts < busyRetries {
                    busyAttempts += 1
                    for index in records.indices { records[index].phase = "sweep-busy" }
                    try write(records)
                    say("rate \(Int(rate))/s failed while other processes used \(String(format: "%.2f", others)) cores; measuring it again")
                    try await Task.sleep(for: .seconds(15))
                    continue
                }
                try write(records)
                say("rate \(Int(rate))/s: median p99 \(String(format: "%.1f", p99)) ms, \(passed ? "passes" : "fails; the sweep stops")")
                break
            }
            if !passed { break }
        }
        if overloadRate > 0 {
            for run in 1...max(1, runs) { try write([try await measure("overload", rate: overloadRate, seconds: seconds, run: run)]) }
        }
    }

    private func measureRun(
        _ number: UInt32,
        phase: String,
        rate: Double,
        seconds: Double,
        run: Int,
        load: SteadyLoad,
        ledger: DeliveryLedger
    ) async -> RunRecord {
        let serverCPU = server.serverPID.map { CPUMeter(pid: $0) }
        let benchCPU = CPUMeter(pid: getpid())
        let outcome = await load.run(number, rate: rate, seconds: seconds, ledger: ledger)
        let drainStart = ContinuousClock.now
        while !offline, ledger.undelivered(of: outcome.scheduled) > 0, ContinuousClock.now - drainStart < .seconds(drainSeconds) {
            try? await Task.sleep(for: .milliseconds(20))
        }
        let drained = (ContinuousClock.now - drainStart).inSeconds
        let serverUsage = serverCPU?.usage()
        let benchUsage = benchCPU.usage()
        let machineCores = benchCPU.machineCoresUsed()
        let figures = ledger.measure(count: outcome.scheduled)
        let sample = server.serverPID.flatMap { ProcessSample.read(pid: $0) }
        return RunRecord(
            phase: phase,
            offline: offline ? true : nil,
            devices: devices,
            rate: rate,
            seconds: seconds,
            run: run,
            scheduled: outcome.scheduled,
            sent: figures.sent,
            accepted: figures.accepted,
            refused: Dictionary(uniqueKeysWithValues: figures.refused.map { (String($0.key), $0.value) }),
            failed: figures.failed,
            failures: figures.failures,
            received: figures.received,
            lost: offline ? 0 : figures.lost,
            receivedWithout200: figures.receivedWithout200,
            duplicates: figures.duplicates,
            strays: figures.strays,
            linkErrors: figures.linkErrors,
            linksClosed: figures.linksClosed,
            sendRate: outcome.sendSeconds > 0 ? Double(figures.sent) / outcome.sendSeconds : 0,
            maximumLag: outcome.maximumLag,
            acceptedPerSecond: figures.acceptSeconds > 0 ? Double(figures.accepted) / figures.acceptSeconds : 0,
            deliveredPerSecond: figures.deliverySeconds > 0 ? Double(figures.received) / figures.deliverySeconds : 0,
            latency: figures.latency,
            answerLatency: figures.answerLatency,
            serverCores: serverUsage?.cores,
            benchCores: benchUsage?.cores,
            serverWaitingForCPU: serverUsage?.waiting,
            benchWaitingForCPU: benchUsage?.waiting,
            otherCores: machineCores.map { max(0, $0 - (serverUsage?.cores ?? 0) - (benchUsage?.cores ?? 0)) },
            serverResidentKiB: sample?.residentKiB,
            serverPeakKiB: sample?.peakResidentKiB,
            drainSeconds: drained
        )
    }

    /// A 200-byte alert, the same size as the gateway benchmark's body.
    static let payload: [UInt8] = {
        let head = #"{"aps":{"alert":{"title":"Benchmark","body":""#
        let tail = #""},"sound":"default"},"id":1}"#
        return Array((head + String(repeating: "x", count: 200 - head.utf8.count - tail.utf8.count) + tail).utf8)
    }()

    static func summary(_ record: RunRecord) -> String {
        func number(_ value: Double) -> String { String(format: "%.0f", value) }
        func milliseconds(_ value: Double) -> String { String(format: "%.1f", value) }
        func cores(_ value: Double?) -> String { value.map { String(format: "%.2f", $0) } ?? "?" }
        var text = record.isOffline ? "offline " : ""
        text += "\(record.phase) \(number(record.rate))/s run \(record.run): accepted \(record.accepted)/\(record.scheduled)"
        text += " (\(number(record.acceptedPerSecond))/s), delivered \(record.received) (\(number(record.deliveredPerSecond))/s)"
        text += ", lost \(record.lost), latency p50 \(milliseconds(record.latency.p50)) p99 \(milliseconds(record.latency.p99))"
        text += " max \(milliseconds(record.latency.max)) ms, answer p99 \(milliseconds(record.answerLatency.p99)) ms"
        text += ", lag \(record.maximumLag), server \(cores(record.serverCores)) cores (waited \(cores(record.serverWaitingForCPU)))"
        text += ", bench \(cores(record.benchCores)) cores (waited \(cores(record.benchWaitingForCPU))), others \(cores(record.otherCores)) cores"
        if !record.refused.isEmpty { text += ", refused \(record.refused)" }
        if record.failed > 0 { text += ", failed \(record.failed) \(record.failures)" }
        if record.duplicates + record.strays + record.linkErrors + record.linksClosed > 0 {
            text += ", duplicates \(record.duplicates), strays \(record.strays), link errors \(record.linkErrors), links closed \(record.linksClosed)"
        }
        return text
    }
}
