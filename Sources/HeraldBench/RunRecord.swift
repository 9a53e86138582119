/// One measured run of the delivery benchmark, as a JSON line (`herald-bench delivery --json`).
struct RunRecord: Codable, Sendable {
    /// `warmup`, `steady` (the fixed moderate rate), `sweep` (the rate steps) or `overload`.
    var phase: String
    /// `true` when every device had enrolled and then closed its link before the runs (`herald-bench delivery
    /// --offline`): the server stores each notification for an offline token and nothing is received, so a run is
    /// judged by the `200`'s latency. Absent in the lines of a run with the devices connected.
    var offline: Bool?
    /// Connected devices.
    var devices: Int
    /// The offered rate, notifications per second.
    var rate: Double
    /// How long the provider sent.
    var seconds: Double
    /// The run's number within its rate, from 1.
    var run: Int
    /// Notifications the run was to send, and sent.
    var scheduled: Int
    var sent: Int
    /// Answered 200.
    var accepted: Int
    /// Answered with another status, by status.
    var refused: [String: Int]
    /// No answer (connection lost, timeout), and why.
    var failed: Int
    var failures: [String: Int]
    /// Accepted notifications a device received (each counted once).
    var received: Int
    /// Accepted (200) but never received, after the drain; 0 when the devices were offline (nothing is sent).
    var lost: Int
    /// Received although the provider got no 200 for it.
    var receivedWithout200: Int
    /// Receipts of a notification already received (a redelivery), and of notifications of another run.
    var duplicates: Int
    var strays: Int
    /// `error` frames the devices got, and links that closed, since the benchmark started.
    var linkErrors: Int
    var linksClosed: Int
    /// Sent per second of the sending phase.
    var sendRate: Double
    /// The most notifications that were due but not yet sent (the provider side fell behind).
    var maximumLag: Int
    /// Accepted per second, from the first send to the last answer.
    var acceptedPerSecond: Double
    /// Received per second, from the first send to the last receipt.
    var deliveredPerSecond: Double
    /// Device receipt minus provider send, milliseconds.
    var latency: Percentiles
    /// Server answer minus provider send (the gateway's `200`), milliseconds.
    var answerLatency: Percentiles
    /// CPU use over the run (send and drain), in cores (1.0 = one core busy).
    var serverCores: Double?
    var benchCores: Double?
    /// Seconds per second the threads of each process were runnable but waited for a CPU (other load on the machine).
    /// (The server's threads also wait for one another when it is pinned to one core.)
    var serverWaitingForCPU: Double?
    var benchWaitingForCPU: Double?
    /// Cores the rest of the machine kept busy over the run: every process but the server and the benchmark.
    var otherCores: Double?
    /// The server's `VmRSS` and `VmHWM` after the run, KiB.
    var serverResidentKiB: Int?
    var serverPeakKiB: Int?
    /// How long the run waited after the sending phase for the last receipts.
    var drainSeconds: Double

    /// Whether the devices were offline (see ``offline``).
    var isOffline: Bool { offline == true }

    /// The latency a run is judged by: request to receipt, or request to `200` when the devices were offline.
    var judgedLatency: Percentiles { isOffline ? answerLatency : latency }

    /// No loss and every request answered 200 (offline, where `lost` is 0 by definition: nothing received either).
    var isLossless: Bool {
        lost == 0 && failed == 0 && refused.isEmpty && receivedWithout200 == 0 && (!isOffline || received == 0)
    }

    /// Whether the provider sent at the offered rate and deliveries kept up with it (within 5 %); offline, whether the
    /// answers did.
    var keptPace: Bool {
        sendRate >= 0.97 * rate && acceptedPerSecond >= 0.95 * rate && (isOffline || deliveredPerSecond >= 0.95 * rate)
    }
}

/// The idle-memory measurement (`herald-bench idle --json`).
struct IdleRecord: Codable, Sendable {
    /// Devices connected at the end, and the checkpoint measured on the way.
    var devices: Int
    var checkpoint: Int
    /// Seconds waited before each reading.
    var settleSeconds: Double
    /// How long connecting (and enrolling) every device took.
    var connectSeconds: Double
    /// The server's `VmRSS` with no device, at the checkpoint, and with every device; its `VmHWM` at the end. KiB.
    var serverResidentBeforeKiB: Int
    var serverResidentAtCheckpointKiB: Int
    var serverResidentAfterKiB: Int
    var serverPeakKiB: Int
    /// The server's open files with no device and with every device (each device link is one socket).
    var serverFilesBefore: Int
    var serverFilesAfter: Int
    /// This process's `VmRSS` with no device and with every device, KiB.
    var benchResidentBeforeKiB: Int
    var benchResidentAfterKiB: Int

    /// (RSS with every device − RSS with none) / devices, KiB.
    var perDeviceKiB: Double { Double(serverResidentAfterKiB - serverResidentBeforeKiB) / Double(max(1, devices)) }
    /// (RSS with every device − RSS at the checkpoint) / the devices in between: the cost of one more device, without
    /// the one-time growth (caches, pools) of the first connections.
    var marginalPerDeviceKiB: Double {
        Double(serverResidentAfterKiB - serverResidentAtCheckpointKiB) / Double(max(1, devices - checkpoint))
    }
    /// The client side's cost per device, KiB.
    var benchPerDeviceKiB: Double { Double(benchResidentAfterKiB - benchResidentBeforeKiB) / Double(max(1, devices)) }
}
