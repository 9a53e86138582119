/// The latency and rate table: one row per phase and rate, medians over its runs; then every run, folded.
struct DeliveryTable {
    /// The runs of one phase at one rate.
    struct Row {
        var phase: String
        var rate: Double
        var runs: [RunRecord]

        func med(_ value: (RunRecord) -> Double) -> Double? { median(runs.map(value)) }
        func medianOfPresent(_ value: (RunRecord) -> Double?) -> Double? { median(runs.compactMap(value)) }

        var p99: Double { med { $0.judgedLatency.p99 } ?? .infinity }
        var lossless: Bool { runs.allSatisfy(\.isLossless) }
        var keptPace: Bool { runs.filter(\.keptPace).count * 2 > runs.count }

        /// Whether the rate is sustained: median p99 under the limit, no loss, and deliveries kept pace in most runs.
        func passes(p99Limit: Double) -> Bool { p99 < p99Limit && lossless && keptPace }

        func verdict(p99Limit: Double) -> String {
            var reasons: [String] = []
            if !lossless { reasons.append("loss or refusals") }
            if !keptPace { reasons.append("fell behind") }
            if p99 >= p99Limit { reasons.append("p99 ≥ \(Int(p99Limit)) ms") }
            return reasons.isEmpty ? "✓" : "✗ " + reasons.joined(separator: ", ")
        }
    }

    var rows: [Row] = []
    let p99Limit: Double

    init(records: [RunRecord], p99Limit: Double) {
        self.p99Limit = p99Limit
        for record in records {
            if let index = rows.firstIndex(where: { $0.phase == record.phase && $0.rate == record.rate }) {
                rows[index].runs.append(record)
            } else {
                rows.append(Row(phase: record.phase, rate: record.rate, runs: [record]))
            }
        }
    }

    /// The highest sweep rate that passed, with every lower sweep rate passing too.
    var highestSustained: Row? {
        var best: Row?
        for row in rows where row.phase == "sweep" {
            guard row.passes(p99Limit: p99Limit) else { break }
            best = row
        }
        return best
    }

    /// Whether these are the runs of `herald-bench delivery --offline` (judged by the `200`'s latency).
    var isOffline: Bool { rows.first?.runs.first?.isOffline ?? false }

    /// The tables and the summary. `gatewayAccept`: the durable accept rate of the same run (h2load); `pacedAccept`:
    /// the highest rate the offline runs of the same run answered with p99 under the limit.
    func markdown(gatewayAccept: Double?, pacedAccept: (rate: Double, sweepEnded: Bool)? = nil) -> String {
        let devices = rows.first?.runs.first?.devices ?? 0
        var lines = [
            isOffline
                ? "## Paced acceptance, \(devices) devices offline (latency: request → 200)"
                : "## Latency and rate, \(devices) devices",
            "",
            "| Phase | Offered /s | Runs | Accepted /s | Delivered /s | p50 ms | p99 ms | max ms | 200 answer p99 ms "
                + "| Lost | Server CPU | Bench CPU | Others' CPU | Server RSS after | Result |",
            "|---|---|---|---|---|---|---|---|---|---|---|---|---|---|---|",
        ]
        // Sweep runs measured again because the machine was busy are in the details only.
        for row in rows where !row.phase.hasSuffix("-busy") {
            let lost = row.runs.map(\.lost).reduce(0, +)
            let refused = row.runs.map { $0.refused.values.reduce(0, +) + $0.failed }.reduce(0, +)
            var cells = [
                row.phase, Cell.rate(row.rate), "\(row.runs.count)", Cell.rate(row.med(\.acceptedPerSecond)),
                Cell.rate(row.med(\.deliveredPerSecond)),
            ]
            cells += [
                Cell.milliseconds(row.med { $0.judgedLatency.p50 }), Cell.milliseconds(row.med { $0.judgedLatency.p99 }),
                Cell.milliseconds(row.med { $0.judgedLatency.max }), Cell.milliseconds(row.med { $0.answerLatency.p99 }),
            ]
            cells += [
                "\(lost)" + (refused > 0 ? " (+\(refused) not 200)" : ""),
                Cell.cores(row.medianOfPresent(\.serverCores)), Cell.cores(row.medianOfPresent(\.benchCores)),
                Cell.cores(row.medianOfPresent(\.otherCores)),
                Cell.mebibytes(row.medianOfPresent { $0.serverResidentKiB.map(Double.init) }), row.verdict(p99Limit: p99Limit),
            ]
            lines.append("| " + cells.joined(separator: " | ") + " |")
        }
        lines.append("")
        lines.append(summary(gatewayAccept: isOffline ? nil : gatewayAccept, pacedAccept: pacedAccept))
        lines.append("")
        lines.append("<details><summary>Every run</summary>")
        lines.append("")
        lines.append(
            "| Phase | Offered /s | Run | Sent | Accepted | Received | Lost | Dup. | Accepted /s | Delivered /s | p50 ms | p99 ms | max ms "
                + "| Lag | Server CPU | Others' CPU |"
        )
        lines.append("|---|---|---|---|---|---|---|---|---|---|---|---|---|---|---|---|")
        for row in rows {
            for run in row.runs {
                let cells = [
                    run.phase, Cell.rate(run.rate), "\(run.run)", "\(run.sent)", "\(run.accepted)", "\(run.received)", "\(run.lost)",
                    "\(run.duplicates)", Cell.rate(run.acceptedPerSecond), Cell.rate(run.deliveredPerSecond),
                    Cell.milliseconds(run.judgedLatency.p50), Cell.milliseconds(run.judgedLatency.p99),
                    Cell.milliseconds(run.judgedLatency.max),
                    "\(run.maximumLag)", Cell.cores(run.serverCores), Cell.cores(run.otherCores),
                ]
                lines.append("| " + cells.joined(separator: " | ") + " |")
            }
        }
        lines.append("")
        lines.append("</details>")
        return lines.joined(separator: "\n") + "\n"
    }

    /// The line `bench/delivery/run.sh` ends with: `delivery/accept: R (D/s with p99 < 50 ms / A/s accepted durably)`.
    static func ratioLine(delivered: Double, accepted: Double, p99Limit: Double) -> String {
        String(
            format: "delivery/accept: %.2f (%.0f/s with p99 < %.0f ms / %.0f/s accepted durably)",
            delivered / accepted,
            delivered,
            p99Limit,
            accepted
        )
    }

    /// The line before it when the offline runs were measured too:
    /// `delivery/paced-accept: R (D/s delivered with p99 < 50 ms / P/s answered with p99 < 50 ms, devices offline)`.
    /// `sweepEnded`: the offline sweep passed its last rate, so `answered` is a lower bound (the line says so).
    static func pacedRatioLine(delivered: Double, answered: Double, p99Limit: Double, sweepEnded: Bool = false) -> String {
        String(
            format: "delivery/paced-accept: %.2f (%.0f/s delivered with p99 < %.0f ms / %.0f/s answered with p99 < %.0f ms, devices offline",
            answered > 0 ? delivered / answered : 0,
            delivered,
            p99Limit,
            answered,
            p99Limit
        ) + (sweepEnded ? "; the sweep's last rate, the highest not reached)" : ")")
    }

    /// Whether every sweep rate passed (the highest sustained rate is then only a lower bound).
    var sweepPassedEveryRate: Bool {
        let sweep = rows.filter { $0.phase == "sweep" }
        return !sweep.isEmpty && sweep.allSatisfy { $0.passes(p99Limit: p99Limit) }
    }

    private func summary(gatewayAccept: Double?, pacedAccept: (rate: Double, sweepEnded: Bool)?) -> String {
        // Offline runs (paced acceptance) are judged by the 200's p99 and deliver nothing.
        func figures(_ row: Row) -> String {
            isOffline
                ? "(median p99 of the 200 \(Cell.milliseconds(row.p99)) ms)."
                : "(median p99 \(Cell.milliseconds(row.p99)) ms, delivered \(Cell.rate(row.med(\.deliveredPerSecond)))/s)."
        }
        var text: String
        if let best = highestSustained {
            text =
                isOffline
                ? "**Highest rate answered with p99 < \(Int(p99Limit)) ms, devices offline: "
                : "**Highest sustained rate with p99 < \(Int(p99Limit)) ms: "
            text += "\(Cell.rate(best.rate))/s** " + figures(best)
            if sweepPassedEveryRate { text += " It was the sweep's last rate: the highest was not reached." }
        } else {
            text =
                isOffline
                ? "**No sweep rate passed** with the devices offline (the 200's p99 < \(Int(p99Limit)) ms, every answer 200)."
                : "**No sweep rate passed** (p99 < \(Int(p99Limit)) ms, no loss, deliveries keeping pace)."
        }
        if let failed = rows.first(where: { $0.phase == "sweep" && !$0.passes(p99Limit: p99Limit) }) {
            text += " The next step, \(Cell.rate(failed.rate))/s, failed: \(failed.verdict(p99Limit: p99Limit).dropFirst(2)) " + figures(failed)
        }
        let remeasured = Set(rows.filter { $0.phase == "sweep-busy" }.map(\.rate)).count
        if remeasured > 0 {
            text += " \(remeasured) rate(s) failed while other processes kept the machine busy and were measured again; "
            text += "the busy runs are in the details (phase `sweep-busy`)."
        }
        let sustained = highestSustained?.rate ?? 0
        if let pacedAccept {
            text += " The same provider with every device offline was answered with p99 < \(Int(p99Limit)) ms up to"
            text += " \(pacedAccept.sweepEnded ? "at least " : "")\(Cell.rate(pacedAccept.rate))/s (the table below)."
        }
        if let gatewayAccept, gatewayAccept > 0 {
            let keepsUp = sustained >= 0.7 * gatewayAccept
            text += " In the same run, on the same pinned core, the server accepted \(Cell.rate(gatewayAccept))/s durably with no device"
            text += " connected (h2load): delivery "
            text +=
                keepsUp
                ? "keeps up with acceptance (≥ 0.7 of it)." : String(format: "does **not** keep up (%.0f %% of it).", 100 * sustained / gatewayAccept)
        }
        if let pacedAccept {
            text += "\n\n"
            text += Self.pacedRatioLine(delivered: sustained, answered: pacedAccept.rate, p99Limit: p99Limit, sweepEnded: pacedAccept.sweepEnded)
        }
        if let gatewayAccept, gatewayAccept > 0 {
            text += "\n\n" + Self.ratioLine(delivered: sustained, accepted: gatewayAccept, p99Limit: p99Limit)
        }
        return text
    }
}
