import HeraldProviderClient
import NIOCore

extension WebPushCommand {
    /// The throughput phase: every request built beforehand (the web pushes encrypted, the sender's cost), then for
    /// each round N web pushes and N APNs pushes of the same body size at the same concurrency, the order alternating.
    /// Returns whether every request of every round was answered 2xx.
    func measureThroughput(fleet: WebAppFleet, pushService: PushService, group: any EventLoopGroup) async throws -> Bool {
        let key = try provider.key()
        let apps = fleet.webApps
        guard !apps.isEmpty else { throw BenchFailure("no web app subscribed") }
        let total = warmup + pushes
        let encryptStart = ContinuousClock.now
        let webPushes = try (0..<total).map { index in
            try pushService.request(BenchMessage.plaintext(run: 0, index: index), to: apps[Int.random(in: apps.indices)])
        }
        let bodyBytes = webPushes[0].body.count
        guard webPushes.allSatisfy({ $0.body.count == bodyBytes }) else { throw BenchFailure("the encrypted bodies differ in size") }
        let payload = Self.alertPayload(size: bodyBytes)
        let apnsPushes = (0..<total).map { _ in
            APNSRequest(
                deviceToken: apps[Int.random(in: apps.indices)].device.token.hex,
                payload: payload,
                topic: DeviceFleet.bundleID,
                pushType: .alert,
                priority: .immediate
            )
        }
        say("\(total) web pushes encrypted (\(bodyBytes)-byte bodies) in \(String(format: "%.1f", (ContinuousClock.now - encryptStart).inSeconds)) s")

        guard let webPushEndpoint = APNSProviderClient.Endpoint(url: pushService.origin) else {
            throw BenchFailure("the push service's origin \(pushService.origin) is not a URL the client takes")
        }
        let apnsEndpoint = APNSProviderClient.Endpoint(host: server.host, port: provider.cleartextPort, usesTLS: false)
        let webPushClients = try await connectClients(connections, endpoint: webPushEndpoint, authentication: .none, group: group)
        let apnsClients = try await connectClients(connections, endpoint: apnsEndpoint, authentication: .token(key), group: group)
        let problems = DeliveryLedger()
        var clean = true
        try await withThrowingTaskGroup(of: Void.self) { tasks in
            tasks.addTask { await fleet.receive(.acknowledge, problems: problems) }
            defer { tasks.cancelAll() }
            func burst(_ kind: PushKind, offset: Int, count: Int) async -> (BurstOutcome, Double?) {
                let cpuBefore = server.serverPID.flatMap(ProcessSample.read(pid:))?.cpuSeconds
                let outcome: BurstOutcome
                if kind == .webPush {
                    outcome = await BurstLoad.run(count: count, concurrency: concurrency) { index in
                        try await webPushClients[index % webPushClients.count].send(webPushes[offset + index]).status
                    }
                } else {
                    outcome = await BurstLoad.run(count: count, concurrency: concurrency) { index in
                        try await apnsClients[index % apnsClients.count].send(apnsPushes[offset + index]).status
                    }
                }
                let cpuAfter = server.serverPID.flatMap(ProcessSample.read(pid:))?.cpuSeconds
                return (outcome, WebPushThroughputRecord.microsecondsPerRequest(cpuBefore: cpuBefore, cpuAfter: cpuAfter, requests: outcome.sent))
            }
            if warmup > 0 {
                let (webPush, _) = await burst(.webPush, offset: 0, count: warmup)
                let (apns, _) = await burst(.apns, offset: 0, count: warmup)
                say("warm-up: web push \(Self.rate(webPush)), APNs \(Self.rate(apns))")
                guard webPush.isClean, apns.isClean else {
                    throw BenchFailure("the warm-up was refused: web push \(webPush.problems); APNs \(apns.problems)")
                }
            }
            for round in 1...rounds {
                let webPushFirst = (first == .webPush) == (round % 2 == 1)
                let webPush: (outcome: BurstOutcome, cpu: Double?)
                let apns: (outcome: BurstOutcome, cpu: Double?)
                if webPushFirst {
                    webPush = await burst(.webPush, offset: warmup, count: pushes)
                    apns = await burst(.apns, offset: warmup, count: pushes)
                } else {
                    apns = await burst(.apns, offset: warmup, count: pushes)
                    webPush = await burst(.webPush, offset: warmup, count: pushes)
                }
                let record = WebPushThroughputRecord(
                    round: round,
                    webApps: apps.count,
                    pushes: pushes,
                    concurrency: concurrency,
                    connections: connections,
                    bodyBytes: bodyBytes,
                    first: (webPushFirst ? PushKind.webPush : .apns).rawValue,
                    webPush: webPush.outcome,
                    apns: apns.outcome,
                    webPushServerMicroseconds: webPush.cpu,
                    apnsServerMicroseconds: apns.cpu,
                    ratio: WebPushThroughputRecord.ratio(webPush.outcome.acceptedPerSecond, to: apns.outcome.acceptedPerSecond)
                )
                say(Self.summary(record))
                if !record.isClean { clean = false }
                if let json { try appendJSONLine(record, to: json) }
            }
            let links = problems.measure(count: 0)
            if links.linkErrors + links.linksClosed > 0 {
                say("flagged: \(links.linkErrors) error frames, \(links.linksClosed) links closed during the rounds")
                clean = false
            }
            await fleet.close()
        }
        for client in webPushClients + apnsClients { await client.shutdown() }
        return clean
    }

    /// An APNs alert payload of exactly `size` bytes (at least 60): `{"aps":{"alert":{"title":…,"body":"xxx…"}}}`.
    static func alertPayload(size: Int) -> [UInt8] {
        let head = #"{"aps":{"alert":{"title":"Benchmark","body":""#
        let tail = #""},"sound":"default"}}"#
        return Array((head + String(repeating: "x", count: max(0, size - head.utf8.count - tail.utf8.count)) + tail).utf8)
    }

    /// `5123/s (20000 accepted)` or `…, refused 3 × 403`.
    static func rate(_ outcome: BurstOutcome) -> String {
        var text = "\(Int(outcome.acceptedPerSecond.rounded()))/s (\(outcome.accepted)/\(outcome.sent) accepted)"
        if !outcome.isClean { text += ", not 2xx: " + outcome.problems }
        return text
    }

    /// One line per round, for people.
    static func summary(_ record: WebPushThroughputRecord) -> String {
        func cpu(_ value: Double?) -> String { value.map { String(format: ", server %.0f µs/request", $0) } ?? "" }
        let ratio = record.ratio.map { String(format: "%.2f", $0) } ?? "—"
        return "round \(record.round) (\(record.first) first): web push \(rate(record.webPush))\(cpu(record.webPushServerMicroseconds)); "
            + "APNs \(rate(record.apns))\(cpu(record.apnsServerMicroseconds)); ratio \(ratio)"
    }
}
