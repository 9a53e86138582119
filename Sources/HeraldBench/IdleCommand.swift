import ArgumentParser
import Foundation
import NIOCore
import NIOPosix

/// `herald-bench idle`: the server's memory per idle connected device.
struct IdleCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "idle",
        abstract: "Connect N idle devices and read the server's RSS before, at a checkpoint, and after."
    )

    @OptionGroup var server: ServerOptions

    @Option(help: "Idle devices to connect.")
    var devices = 10_000

    @Option(help: "Devices at which the RSS is also read (for the marginal cost per device).")
    var checkpoint = 1000

    @Option(name: .customLong("settle-seconds"), help: "Seconds to wait before each reading.")
    var settleSeconds = 10.0

    @Option(help: "Append the result as one JSON line to this file.")
    var json: String?

    func run() async throws {
        guard let pid = server.serverPID else { throw BenchFailure("--server-pid is required: the RSS is read from /proc") }
        guard checkpoint > 0, checkpoint < devices else { throw BenchFailure("--checkpoint must be between 0 and --devices") }
        let group = MultiThreadedEventLoopGroup(numberOfThreads: server.eventLoops ?? System.coreCount)
        var fleet = DeviceFleet(host: server.host, port: server.linkPort, group: group, concurrency: server.connectConcurrency)

        try await settle()
        let before = try sample(pid)
        let benchBefore = ProcessSample.current()
        say("server before: \(before.residentKiB) KiB, \(before.openFiles) open files")

        let start = ContinuousClock.now
        try await fleet.grow(to: checkpoint)
        try await settle()
        let atCheckpoint = try sample(pid)
        say("server with \(checkpoint) devices: \(atCheckpoint.residentKiB) KiB")

        try await fleet.grow(to: devices)
        let connectSeconds = (ContinuousClock.now - start).inSeconds - settleSeconds
        try await settle()
        let after = try sample(pid)
        let benchAfter = ProcessSample.current()
        say("server with \(devices) devices: \(after.residentKiB) KiB, \(after.openFiles) open files")

        let record = IdleRecord(
            devices: devices,
            checkpoint: checkpoint,
            settleSeconds: settleSeconds,
            connectSeconds: connectSeconds,
            serverResidentBeforeKiB: before.residentKiB,
            serverResidentAtCheckpointKiB: atCheckpoint.residentKiB,
            serverResidentAfterKiB: after.residentKiB,
            serverPeakKiB: after.peakResidentKiB,
            serverFilesBefore: before.openFiles,
            serverFilesAfter: after.openFiles,
            benchResidentBeforeKiB: benchBefore?.residentKiB ?? 0,
            benchResidentAfterKiB: benchAfter?.residentKiB ?? 0
        )
        say(
            "per device: \(String(format: "%.1f", record.perDeviceKiB)) KiB (marginal \(String(format: "%.1f", record.marginalPerDeviceKiB)) KiB); "
                + "bench \(String(format: "%.1f", record.benchPerDeviceKiB)) KiB per client"
        )
        if let json { try appendJSONLine(record, to: json) }
        await fleet.close()
        try await group.shutdownGracefully()
    }

    private func settle() async throws {
        try await Task.sleep(for: .seconds(settleSeconds))
    }

    private func sample(_ pid: Int32) throws -> ProcessSample {
        guard let sample = ProcessSample.read(pid: pid) else { throw BenchFailure("cannot read /proc/\(pid): has the server exited?") }
        return sample
    }
}
