import ArgumentParser
import Foundation
import HeraldTestTiers
import Synchronization
import Testing

@testable import HeraldBench

@Suite("herald-bench webpush: the bench message, the rates and their ratio, the ledger, the options", .tier(.unit))
struct WebPushBenchTests {
    @Test("a bench message is a declarative message whose navigate URL names its run and index, the same length for all")
    func benchMessage() throws {
        let first = BenchMessage.plaintext(run: 1, index: 0)
        let last = BenchMessage.plaintext(run: 1, index: 99_999_999)
        #expect(first.count == last.count)
        #expect(String(decoding: first, as: UTF8.self).hasPrefix(#"{"web_push":8030,"notification":{"title":"Bench message""#))
        #expect(try BenchMessage.parse(last).get() == BenchMessage(run: 1, index: 99_999_999))
        #expect(try BenchMessage.parse(BenchMessage.plaintext(run: 12, index: 345)).get() == BenchMessage(run: 12, index: 345))
    }

    @Test(
        "a plaintext a web app would not show is a failure, not a message",
        arguments: [
            "not json",
            #"{"web_push":8031,"notification":{"title":"t","navigate":"https://bench.example/m/0001-00000001"}}"#,
            #"{"web_push":8030,"notification":{"title":"","navigate":"https://bench.example/m/0001-00000001"}}"#,
            #"{"web_push":8030,"notification":{"title":"t","navigate":"https://other.example/m/0001-00000001"}}"#,
            #"{"web_push":8030,"notification":{"title":"t","navigate":"https://bench.example/m/one-two"}}"#,
            #"{"web_push":8030}"#,
        ]
    )
    func notShown(plaintext: String) {
        guard case .failure = BenchMessage.parse(Array(plaintext.utf8)) else {
            Issue.record("\(plaintext) was read as a bench message")
            return
        }
    }

    @Test("a burst counts only 2xx as accepted, every other status and every error apart, and keeps C requests in flight")
    func burst() async {
        let inFlight = InFlightGauge()
        let outcome = await BurstLoad.run(count: 200, concurrency: 8) { index in
            inFlight.state.withLock {
                $0.now += 1
                $0.most = max($0.most, $0.now)
            }
            defer { inFlight.state.withLock { $0.now -= 1 } }
            await Task.yield()
            if index % 50 == 7 { throw BenchFailure("reset") }
            return index % 10 == 3 ? 403 : (index % 2 == 0 ? 201 : 200)
        }
        #expect(outcome.sent == 200)
        #expect(outcome.failed == 4)
        #expect(outcome.failures == ["reset": 4])
        #expect(outcome.refused == ["403": 20])
        #expect(outcome.accepted == 176)
        #expect(!outcome.isClean)
        #expect(outcome.problems == "20 × 403, 4 × no answer (reset)")
        #expect(inFlight.state.withLock { $0.most } <= 8)
        #expect(outcome.seconds > 0)
    }

    @Test("the accepted rate is 2xx answers over the burst's time; the ratio is web push over APNs, none without a reference")
    func rates() {
        var webPush = BurstOutcome(sent: 20_000, accepted: 20_000, seconds: 4)
        let apns = BurstOutcome(sent: 20_000, accepted: 20_000, seconds: 3.125)
        #expect(webPush.acceptedPerSecond == 5000)
        #expect(apns.acceptedPerSecond == 6400)
        #expect(webPush.isClean)
        #expect(WebPushThroughputRecord.ratio(webPush.acceptedPerSecond, to: apns.acceptedPerSecond) == 0.78125)
        #expect(WebPushThroughputRecord.ratio(5000, to: 0) == nil)
        webPush.merge(BurstOutcome(sent: 1, accepted: 0, refused: ["410": 1], seconds: 99))
        #expect(webPush.sent == 20_001 && webPush.refused == ["410": 1] && webPush.seconds == 4)
        #expect(!webPush.isClean)
        #expect(BurstOutcome().acceptedPerSecond == 0 && !BurstOutcome().isClean)
        let cpu = WebPushThroughputRecord.microsecondsPerRequest(cpuBefore: 10, cpuAfter: 11.5, requests: 20_000)
        #expect(cpu.map { abs($0 - 75) < 1e-9 } == true)
        #expect(WebPushThroughputRecord.microsecondsPerRequest(cpuBefore: nil, cpuAfter: 11.5, requests: 20_000) == nil)
    }

    @Test("the APNs reference payload is exactly the size asked for, and JSON")
    func alertPayload() throws {
        for size in [120, 205, 4096] {
            let payload = WebPushCommand.alertPayload(size: size)
            #expect(payload.count == size)
            #expect(String(decoding: payload, as: UTF8.self).hasSuffix(#""},"sound":"default"}}"#))
            #expect(try JSONSerialization.jsonObject(with: Data(payload)) is [String: Any])
        }
    }

    @Test("the ledger times provider request → shown, counts what was accepted and not shown, and strays of another run")
    func ledger() {
        let ledger = ShownLedger()
        ledger.start(run: 3, count: 3)
        ledger.sent(0, at: 1_000_000)
        ledger.sent(1, at: 2_000_000)
        ledger.sent(2, at: 3_000_000)
        ledger.answered(0, status: 201, at: 1_500_000)
        ledger.answered(1, status: 201, at: 2_500_000)
        ledger.answered(2, status: 201, at: 3_500_000)
        ledger.shown(BenchMessage(run: 3, index: 0), at: 5_000_000)
        ledger.shown(BenchMessage(run: 3, index: 1), at: 14_000_000)
        #expect(ledger.unshown == 1)
        ledger.shown(BenchMessage(run: 2, index: 2), at: 15_000_000)
        ledger.shown(BenchMessage(run: 3, index: 0), at: 16_000_000)
        ledger.notShown(BenchMessage.Failure("cannot decrypt"))
        let figures = ledger.figures()
        #expect(figures.sent == 3 && figures.accepted == 3 && figures.shown == 2 && figures.lost == 1)
        #expect(figures.strays == 1 && figures.duplicates == 1 && figures.notShown == ["cannot decrypt": 1])
        #expect(figures.shownLatency.p50 == 4 && figures.shownLatency.max == 12)
        #expect(figures.answerLatency.p99 == 0.5)
        #expect(!figures.isClean)

        ledger.start(run: 4, count: 1)
        ledger.sent(0, at: 1_000_000)
        ledger.answered(0, status: 201, at: 1_100_000)
        ledger.shown(BenchMessage(run: 4, index: 0), at: 3_000_000)
        #expect(ledger.figures().isClean)
    }

    @Test("the push service's origin is the endpoints' one, cleartext; a path is what follows the authority")
    func pushService() throws {
        let endpoints = [
            "http://127.0.0.1:2195/push/" + String(repeating: "a", count: 64), "http://127.0.0.1:2195/push/" + String(repeating: "b", count: 64),
        ]
        #expect(try PushService.origin(of: endpoints) == "http://127.0.0.1:2195")
        #expect(PushService.path(of: endpoints[1]) == "/push/" + String(repeating: "b", count: 64))
        #expect(PushService.path(of: "http://127.0.0.1:2195") == "/")
        #expect(throws: BenchFailure.self) { try PushService.origin(of: ["https://127.0.0.1:2197/push/ab"]) }
        #expect(throws: BenchFailure.self) { try PushService.origin(of: [endpoints[0], "http://127.0.0.2:2195/push/ab"]) }
        #expect(throws: BenchFailure.self) { try PushService.origin(of: []) }
    }

    @Test("webpush's options: a phase is required, the defaults are the issue's, nonsense is refused")
    func options() throws {
        let key = ["--p8", "key.p8", "--key-id", "BENCH12345", "--team-id", "TEAM123456"]
        let command = try WebPushCommand.parse(["--phase", "latency"] + key)
        #expect(command.phase == .latency)
        #expect(command.webApps == 1000 && command.rate == 100 && command.workerPushes == 20)
        #expect(command.serviceWorker == "Examples/WebPush/sw.js")
        let throughput = try WebPushCommand.parse(["--phase", "throughput", "--pushes", "500", "--concurrency", "16"] + key)
        #expect(throughput.phase == .throughput && throughput.pushes == 500 && throughput.concurrency == 16)
        #expect(throughput.first == .webPush)
        #expect(try WebPushCommand.parse(["--phase", "throughput", "--first", "apns"] + key).first == .apns)
        #expect(throws: (any Error).self) { try WebPushCommand.parse(["--phase", "throughput", "--first", "both"] + key) }
        #expect(throws: (any Error).self) { try WebPushCommand.parse(key) }
        #expect(throws: (any Error).self) { try WebPushCommand.parse(["--phase", "both"] + key) }
        #expect(throws: (any Error).self) { try WebPushCommand.parse(["--phase", "latency", "--rate", "0"] + key) }
        #expect(throws: (any Error).self) { try WebPushCommand.parse(["--phase", "throughput", "--concurrency", "0"] + key) }
    }
}

/// Requests in flight in a burst, and the most at once.
private final class InFlightGauge: Sendable {
    let state = Mutex((now: 0, most: 0))
}
