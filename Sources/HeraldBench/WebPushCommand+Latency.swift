import Foundation
import HeraldProviderClient
import NIOCore

extension WebPushCommand {
    /// The latency phase: an unrecorded warm-up, then `runs` runs of declarative messages at `rate` to random web apps
    /// for `seconds`, each web app decrypting and reading what it receives; then the service worker's own time.
    /// Returns whether every message was accepted and shown.
    func measureLatency(fleet: WebAppFleet, pushService: PushService, group: any EventLoopGroup) async throws -> Bool {
        guard let endpoint = APNSProviderClient.Endpoint(url: pushService.origin) else {
            throw BenchFailure("the push service's origin \(pushService.origin) is not a URL the client takes")
        }
        let clients = try await connectClients(connections, endpoint: endpoint, authentication: .none, group: group)
        let ledger = ShownLedger()
        let problems = DeliveryLedger()
        var clean = true
        try await withThrowingTaskGroup(of: Void.self) { tasks in
            tasks.addTask { await fleet.receive(.show(ledger), problems: problems) }
            defer { tasks.cancelAll() }
            if warmupSeconds > 0 {
                let record = try await measureLatencyRun(
                    0,
                    seconds: warmupSeconds,
                    fleet: fleet,
                    pushService: pushService,
                    clients: clients,
                    ledger: ledger
                )
                say("warm-up: " + Self.summary(record))
            }
            for run in 1...runs {
                let record = try await measureLatencyRun(
                    run,
                    seconds: seconds,
                    fleet: fleet,
                    pushService: pushService,
                    clients: clients,
                    ledger: ledger
                )
                say("run \(run): " + Self.summary(record))
                if !record.isClean { clean = false }
                if let json { try appendJSONLine(record, to: json) }
            }
            let links = problems.measure(count: 0)
            if links.linkErrors + links.linksClosed > 0 {
                say("flagged: \(links.linkErrors) error frames, \(links.linksClosed) links closed during the runs")
                clean = false
            }
            await fleet.close()
        }
        for client in clients { await client.shutdown() }
        if workerPushes > 0, !serviceWorker.isEmpty {
            let record = try await ServiceWorkerTiming.measure(run: 1, scriptPath: serviceWorker, node: node, pushes: workerPushes)
            say(
                "service worker \(serviceWorker): start \(String(format: "%.1f", record.startMilliseconds)) ms; per push "
                    + "Node p50 \(String(format: "%.2f", record.worker.p50)) p99 \(String(format: "%.2f", record.worker.p99)) ms, "
                    + "round trip p50 \(String(format: "%.2f", record.roundTrip.p50)) p99 \(String(format: "%.2f", record.roundTrip.p99)) ms"
            )
            if let json { try appendJSONLine(record, to: json) }
        }
        return clean
    }

    /// One run: `rate × seconds` messages, encrypted beforehand, each sent when due (message `i` at `start + i/rate`,
    /// as `SteadyLoad` paces), then a wait of at most `drainSeconds` for the last to be shown.
    private func measureLatencyRun(
        _ run: Int,
        seconds: Double,
        fleet: WebAppFleet,
        pushService: PushService,
        clients: [APNSProviderClient],
        ledger: ShownLedger
    ) async throws -> WebPushLatencyRecord {
        let apps = fleet.webApps
        guard !apps.isEmpty else { throw BenchFailure("no web app subscribed") }
        let total = max(1, Int((rate * seconds).rounded()))
        let requests = try (0..<total).map { index in
            try pushService.request(BenchMessage.plaintext(run: run, index: index), to: apps[Int.random(in: apps.indices)])
        }
        ledger.start(run: run, count: total)
        let serverCPU = server.serverPID.map { CPUMeter(pid: $0) }
        let inFlight = SharedCounter()
        let clock = ContinuousClock()
        let start = clock.now
        var maximumLag = 0
        var next = 0
        await withDiscardingTaskGroup { tasks in
            while next < total {
                let elapsed = (clock.now - start).inSeconds
                // An overloaded server must not stretch a run without end: what is not sent a second after the run's
                // time is left unsent (and shows as lag, and as a run that is not clean).
                guard elapsed < seconds + 1 else {
                    maximumLag = max(maximumLag, total - next)
                    break
                }
                let due = min(total, Int(elapsed * rate) + 1)
                while next < due, inFlight.value.load(ordering: .relaxed) < maximumInFlight {
                    let index = next
                    let client = clients[index % clients.count]
                    next += 1
                    inFlight.value.add(1, ordering: .relaxed)
                    tasks.addTask {
                        ledger.sent(index, at: DeliveryLedger.now())
                        do {
                            let response = try await client.send(requests[index])
                            ledger.answered(index, status: response.status, at: DeliveryLedger.now())
                        } catch {
                            ledger.answered(index, status: -1, at: DeliveryLedger.now(), error: "\(error)")
                        }
                        inFlight.value.subtract(1, ordering: .relaxed)
                    }
                }
                maximumLag = max(maximumLag, due - next)
                guard next < total else { break }
                let nextDue = start + .seconds(Double(next) / rate)
                try? await clock.sleep(until: max(nextDue, clock.now + .milliseconds(1)), tolerance: .microseconds(100))
            }
        }
        let drainStart = clock.now
        while ledger.unshown > 0, clock.now - drainStart < .seconds(drainSeconds) {
            try await Task.sleep(for: .milliseconds(10))
        }
        return WebPushLatencyRecord(
            run: run,
            webApps: apps.count,
            rate: rate,
            seconds: seconds,
            scheduled: total,
            maximumLag: maximumLag,
            figures: ledger.figures(),
            serverCores: serverCPU?.usage()?.cores
        )
    }

    /// One line per latency run, for people.
    static func summary(_ record: WebPushLatencyRecord) -> String {
        let figures = record.figures
        func milliseconds(_ value: Double) -> String { String(format: "%.1f", value) }
        var text = "\(Int(record.rate))/s for \(record.seconds) s: accepted \(figures.accepted)/\(record.scheduled), shown \(figures.shown)"
        text += ", provider request → shown p50 \(milliseconds(figures.shownLatency.p50)) p99 \(milliseconds(figures.shownLatency.p99))"
        text += " max \(milliseconds(figures.shownLatency.max)) ms, answer p99 \(milliseconds(figures.answerLatency.p99)) ms"
        if let cores = record.serverCores { text += String(format: ", server %.2f cores", cores) }
        if record.maximumLag > 0 { text += ", lag \(record.maximumLag)" }
        if !figures.refused.isEmpty { text += ", not 2xx \(figures.refused)" }
        if figures.failed > 0 { text += ", no answer \(figures.failed) \(figures.failures)" }
        if figures.lost > 0 { text += ", not shown in time \(figures.lost)" }
        if !figures.notShown.isEmpty { text += ", would not show \(figures.notShown)" }
        if figures.duplicates + figures.strays > 0 { text += ", duplicates \(figures.duplicates), strays \(figures.strays)" }
        return text
    }
}
