import HeraldCore
import HeraldProviderClient
import HeraldTestTiers
import Testing

@testable import HeraldCLI

@Suite("herald send: answers, the tally and the summary", .tier(.unit))
struct SendTallyTests {
    @Test("nearest-rank percentiles, counts by reason and by error")
    func tally() {
        var tally = SendTally()
        for milliseconds in 1...100 {
            tally.record(APNSResponse(status: 200, apnsID: "id", latency: .milliseconds(milliseconds)))
        }
        tally.record(APNSResponse(status: 400, reason: .badDeviceToken, latency: .milliseconds(1)))
        tally.record(APNSResponse(status: 500, latency: .milliseconds(1)))
        tally.record(failure: APNSProviderClientError.responseTimeout)
        #expect(tally.finished == 103 && tally.accepted == 100 && tally.rejectedCount == 2 && tally.failedCount == 1)
        #expect(tally.rejected == ["BadDeviceToken": 1, "HTTP 500": 1])
        #expect(tally.latency(percentile: 0.5) == .milliseconds(49))
        #expect(tally.latency(percentile: 0.99) == .milliseconds(99))
        #expect(tally.latency(percentile: 1) == .milliseconds(100))

        let lines = tally.summaryLines(elapsed: .seconds(2))
        #expect(lines.first == "sent 103, accepted 100, rejected 2, no answer 1 in 2.00 s (52/s)")
        #expect(lines.contains("  BadDeviceToken: 1") && lines.contains("  no answer (no answer in time): 1"))
        #expect(lines.last?.hasPrefix("latency p50 49.0 ms  p90") == true)
        #expect(tally.progress(of: 200) == "103/200 sent, 100 accepted, 2 rejected, 1 no answer")
    }

    @Test("one line per answer: status, reason, timestamp, apns-id, latency")
    func lines() {
        let accepted = APNSResponse(status: 200, apnsID: "A", apnsUniqueID: "U", latency: .microseconds(1260))
        #expect(SendOutput.line(accepted) == "200  apns-id A  apns-unique-id U  1.3 ms")
        let gone = APNSResponse(status: 410, reason: .unregistered, apnsID: "B", timestamp: 42, latency: .milliseconds(2))
        #expect(SendOutput.line(gone) == "410 Unregistered  timestamp 42  apns-id B  2.0 ms")
        #expect(SendOutput.jsonLine(gone) == #"{"apnsID":"B","latencyMs":2,"reason":"Unregistered","status":410,"timestamp":42}"#)
        #expect(SendLoad.bar(5, of: 20) == "[#####---------------]")
    }
}
