import ArgumentParser
import Foundation

/// `herald-bench report`: the markdown tables of the results file, from the JSON lines of `delivery` and `idle`.
struct ReportCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "report",
        abstract: "Print the results tables (markdown) from the JSON lines of delivery and idle runs."
    )

    @Option(help: "The JSON lines of `herald-bench delivery --json`.")
    var runs: String?

    @Option(
        name: .customLong("offline-runs"),
        help: "The JSON lines of `herald-bench delivery --offline --json` (the same provider, every device offline)."
    )
    var offlineRuns: String?

    @Option(help: "The JSON lines of `herald-bench idle --json`.")
    var idle: String?

    @Option(
        name: .customLong("gateway-accept"),
        help: "The durable accept rate (h2c, no device connected) measured in the same run, to compare delivery with."
    )
    var gatewayAccept: Double?

    @Option(name: .customLong("p99-limit-ms"), help: "The p99 a rate must stay under.")
    var p99LimitMilliseconds = 50.0

    func run() throws {
        var sections: [String] = []
        let offlineTable = try offlineRuns.map { DeliveryTable(records: try Self.readLines($0), p99Limit: p99LimitMilliseconds) }
        if let runs {
            let records: [RunRecord] = try Self.readLines(runs)
            let table = DeliveryTable(records: records, p99Limit: p99LimitMilliseconds)
            let pacedAccept = offlineTable.map { (rate: $0.highestSustained?.rate ?? 0, sweepEnded: $0.sweepPassedEveryRate) }
            sections.append(table.markdown(gatewayAccept: gatewayAccept, pacedAccept: pacedAccept))
        }
        if let offlineTable { sections.append(offlineTable.markdown(gatewayAccept: nil)) }
        if let idle {
            let records: [IdleRecord] = try Self.readLines(idle)
            sections.append(IdleTable(records: records).markdown())
        }
        print(sections.joined(separator: "\n"))
    }

    static func readLines<Record: Decodable>(_ path: String) throws -> [Record] {
        guard let data = FileManager.default.contents(atPath: path) else { throw BenchFailure("cannot read \(path)") }
        let decoder = JSONDecoder()
        return try data.split(separator: UInt8(ascii: "\n")).map { try decoder.decode(Record.self, from: Data($0)) }
    }
}

/// Formatting shared by the tables.
enum Cell {
    static func rate(_ value: Double?) -> String {
        guard let value else { return "—" }
        return value >= 10_000 ? String(format: "%.1fk", value / 1000) : String(format: "%.0f", value)
    }

    static func milliseconds(_ value: Double?) -> String {
        guard let value else { return "—" }
        return value < 10 ? String(format: "%.2f", value) : String(format: "%.1f", value)
    }

    static func cores(_ value: Double?) -> String {
        value.map { String(format: "%.2f", $0) } ?? "—"
    }

    static func mebibytes(_ kibibytes: Double?) -> String {
        kibibytes.map { String(format: "%.1f MiB", $0 / 1024) } ?? "—"
    }

    static func kibibytes(_ value: Double?) -> String {
        value.map { String(format: "%.1f KiB", $0) } ?? "—"
    }
}

/// The idle-memory table: medians over the idle runs.
struct IdleTable {
    var records: [IdleRecord]

    func markdown() -> String {
        guard let first = records.first else { return "" }
        func med(_ value: (IdleRecord) -> Double) -> Double? { median(records.map(value)) }
        var lines = [
            "## Server memory per idle device",
            "",
            "| Devices | Server RSS, none | with \(first.checkpoint) | with \(first.devices) | per device | marginal (\(first.checkpoint)→\(first.devices)) "
                + "| peak (VmHWM) | server sockets added | bench RSS per client | connect time |",
            "|---|---|---|---|---|---|---|---|---|---|",
        ]
        lines.append(
            "| \(first.devices) | \(Cell.mebibytes(med { Double($0.serverResidentBeforeKiB) })) "
                + "| \(Cell.mebibytes(med { Double($0.serverResidentAtCheckpointKiB) })) "
                + "| \(Cell.mebibytes(med { Double($0.serverResidentAfterKiB) })) | **\(Cell.kibibytes(med(\.perDeviceKiB)))** "
                + "| \(Cell.kibibytes(med(\.marginalPerDeviceKiB))) | \(Cell.mebibytes(med { Double($0.serverPeakKiB) })) "
                + "| \(String(format: "%.0f", med { Double($0.serverFilesAfter - $0.serverFilesBefore) } ?? 0)) "
                + "| \(Cell.kibibytes(med(\.benchPerDeviceKiB))) | \(String(format: "%.0f s", med(\.connectSeconds) ?? 0)) |"
        )
        if records.count > 1 {
            lines.append("")
            lines.append(
                "Each run: "
                    + records.map { String(format: "%.1f KiB (marginal %.1f)", $0.perDeviceKiB, $0.marginalPerDeviceKiB) }.joined(separator: ", ")
                    + "."
            )
        }
        return lines.joined(separator: "\n") + "\n"
    }
}
