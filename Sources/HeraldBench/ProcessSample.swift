import Foundation

#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#endif

/// What `/proc` says about a process at one moment: resident memory, its peak, CPU time and open files.
///
/// Linux only; on another system, or for a process that has gone, ``read(pid:)`` returns `nil`.
struct ProcessSample: Sendable {
    /// `VmRSS`, KiB.
    var residentKiB: Int
    /// `VmHWM` (the peak of `VmRSS`), KiB.
    var peakResidentKiB: Int
    /// User plus system CPU time, seconds.
    var cpuSeconds: Double
    /// Entries in `/proc/PID/fd`: sockets, files, pipes.
    var openFiles: Int
    /// Time the process's threads were runnable but waiting for a CPU (`/proc/PID/task/*/schedstat`), seconds:
    /// how much the rest of the machine held it back.
    var runQueueWaitSeconds: Double

    /// Reads a process's sample.
    static func read(pid: Int32) -> ProcessSample? {
        guard let status = text("/proc/\(pid)/status"), let stat = text("/proc/\(pid)/stat") else { return nil }
        let resident = field("VmRSS:", in: status)
        let peak = field("VmHWM:", in: status)
        // The command name (field 2) may hold spaces: the fields after it are counted from its closing parenthesis.
        guard let close = stat.lastIndex(of: ")") else { return nil }
        let fields = stat[stat.index(after: close)...].split(separator: " ")
        // After ")": state (3), … utime (14), stime (15): indexes 11 and 12.
        guard fields.count > 12, let user = Double(fields[11]), let system = Double(fields[12]), let resident, let peak else { return nil }
        let ticks = Double(sysconf(Int32(_SC_CLK_TCK)))
        let files = (try? FileManager.default.contentsOfDirectory(atPath: "/proc/\(pid)/fd").count) ?? 0
        return ProcessSample(
            residentKiB: resident,
            peakResidentKiB: peak,
            cpuSeconds: (user + system) / ticks,
            openFiles: files,
            runQueueWaitSeconds: runQueueWait(pid: pid)
        )
    }

    /// CPU seconds the whole machine spent busy (every core: user, nice, system, irq, softirq, steal), from `/proc/stat`.
    static func machineBusySeconds() -> Double? {
        guard let stat = text("/proc/stat"), let line = stat.split(separator: "\n").first, line.hasPrefix("cpu ") else { return nil }
        let fields = line.split(whereSeparator: \.isWhitespace).dropFirst().compactMap { Double($0) }
        guard fields.count >= 8 else { return nil }
        let busy = fields[0] + fields[1] + fields[2] + fields[5] + fields[6] + fields[7]
        return busy / Double(sysconf(Int32(_SC_CLK_TCK)))
    }

    /// This process's own sample.
    static func current() -> ProcessSample? {
        read(pid: getpid())
    }

    /// This process's user plus system CPU time, seconds, from `getrusage`: microseconds, where `/proc`'s
    /// ``cpuSeconds`` counts clock ticks (10 ms) — too coarse for `herald-bench engine`'s half-second rounds.
    static func ownCPUSeconds() -> Double {
        var usage = rusage()
        getrusage(RUSAGE_SELF.rawValue, &usage)
        return Double(usage.ru_utime.tv_sec + usage.ru_stime.tv_sec) + Double(usage.ru_utime.tv_usec + usage.ru_stime.tv_usec) / 1e6
    }

    private static func runQueueWait(pid: Int32) -> Double {
        let threads = (try? FileManager.default.contentsOfDirectory(atPath: "/proc/\(pid)/task")) ?? []
        var nanoseconds = 0.0
        for thread in threads {
            // "time on CPU, time waiting to run, time slices", nanoseconds.
            guard let line = text("/proc/\(pid)/task/\(thread)/schedstat") else { continue }
            let fields = line.split(whereSeparator: \.isWhitespace)
            if fields.count >= 2, let wait = Double(fields[1]) { nanoseconds += wait }
        }
        return nanoseconds / 1e9
    }

    private static func text(_ path: String) -> String? {
        // `/proc` files report a size of 0, so Foundation's readers see them empty: read until end of file.
        let descriptor = open(path, O_RDONLY)
        guard descriptor >= 0 else { return nil }
        defer { Glibc.close(descriptor) }
        var bytes: [UInt8] = []
        var chunk = [UInt8](repeating: 0, count: 4096)
        while true {
            let count = chunk.withUnsafeMutableBytes { Glibc.read(descriptor, $0.baseAddress, $0.count) }
            guard count > 0 else { return count == 0 ? String(decoding: bytes, as: UTF8.self) : nil }
            bytes += chunk[0..<count]
        }
    }

    private static func field(_ name: String, in status: String) -> Int? {
        for line in status.split(separator: "\n") where line.hasPrefix(name) {
            return line.dropFirst(name.count).split(whereSeparator: { $0 == " " || $0 == "\t" }).first.flatMap { Int($0) }
        }
        return nil
    }
}

/// CPU use of a process over an interval, as a share of one core.
struct CPUMeter: Sendable {
    private let pid: Int32
    private let start: ProcessSample?
    private let startedAt: ContinuousClock.Instant
    private let machineStart: Double?

    /// Starts measuring `pid`.
    init(pid: Int32) {
        self.pid = pid
        self.start = ProcessSample.read(pid: pid)
        self.startedAt = .now
        self.machineStart = ProcessSample.machineBusySeconds()
    }

    /// Cores the whole machine kept busy since the start.
    func machineCoresUsed() -> Double? {
        guard let machineStart, let end = ProcessSample.machineBusySeconds() else { return nil }
        let wall = (ContinuousClock.now - startedAt).inSeconds
        return wall > 0 ? (end - machineStart) / wall : nil
    }

    /// Since the start, per wall-clock second: CPU seconds used (1.0 = one core busy), and seconds its threads
    /// waited for a CPU while runnable; `nil` when unreadable.
    func usage() -> (cores: Double, waiting: Double)? {
        guard let start, let end = ProcessSample.read(pid: pid) else { return nil }
        let wall = (ContinuousClock.now - startedAt).inSeconds
        guard wall > 0 else { return nil }
        return ((end.cpuSeconds - start.cpuSeconds) / wall, (end.runQueueWaitSeconds - start.runQueueWaitSeconds) / wall)
    }
}

extension Duration {
    /// The duration in seconds, as a `Double`.
    var inSeconds: Double {
        let (whole, attoseconds) = components
        return Double(whole) + Double(attoseconds) / 1e18
    }
}
