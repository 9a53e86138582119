import Foundation
import HeraldTestTiers
import Testing

@testable import HeraldBench

@Suite("herald-bench delivery: how a run is judged, the tables' summary lines", .tier(.unit))
struct DeliveryReportTests {
    /// A run at `rate` that kept pace: every notification sent, answered 200 and (online) received.
    static func run(
        rate: Double,
        p99: Double,
        answerP99: Double,
        offline: Bool = false,
        received: Int? = nil,
        lost: Int = 0
    ) -> RunRecord {
        let count = Int(rate * 10)
        var latency = Percentiles()
        if !offline {
            latency.p50 = p99 / 2
            latency.p99 = p99
            latency.max = p99 * 1.5
            latency.count = count
        }
        var answer = Percentiles()
        answer.p50 = answerP99 / 2
        answer.p99 = answerP99
        answer.max = answerP99 * 1.5
        answer.count = count
        return RunRecord(
            phase: "sweep",
            offline: offline ? true : nil,
            devices: 1000,
            rate: rate,
            seconds: 10,
            run: 1,
            scheduled: count,
            sent: count,
            accepted: count,
            refused: [:],
            failed: 0,
            failures: [:],
            received: received ?? (offline ? 0 : count),
            lost: lost,
            receivedWithout200: 0,
            duplicates: 0,
            strays: 0,
            linkErrors: 0,
            linksClosed: offline ? 1000 : 0,
            sendRate: rate,
            maximumLag: 0,
            acceptedPerSecond: rate,
            deliveredPerSecond: offline ? 0 : rate,
            latency: latency,
            answerLatency: answer,
            serverCores: 0.9,
            benchCores: 0.5,
            serverWaitingForCPU: 1,
            benchWaitingForCPU: 0.4,
            otherCores: 0,
            serverResidentKiB: nil,
            serverPeakKiB: nil,
            drainSeconds: 0
        )
    }

    @Test("an offline run is judged by the 200's latency, needs no receipt and must receive nothing")
    func offlineJudgement() {
        let offline = Self.run(rate: 4000, p99: 0, answerP99: 33, offline: true)
        #expect(offline.isOffline && offline.judgedLatency.p99 == 33)
        #expect(offline.isLossless && offline.keptPace)
        // A receipt while every device is offline means the benchmark measured something else.
        #expect(!Self.run(rate: 4000, p99: 0, answerP99: 33, offline: true, received: 1).isLossless)

        let online = Self.run(rate: 4000, p99: 20, answerP99: 5)
        #expect(!online.isOffline && online.judgedLatency.p99 == 20)
        #expect(online.isLossless && online.keptPace)
        var behind = online
        behind.deliveredPerSecond = 3000
        #expect(!behind.keptPace)
        #expect(!Self.run(rate: 4000, p99: 20, answerP99: 5, lost: 1).isLossless)
    }

    @Test("a line without the offline field (older results) reads as an online run")
    func olderLines() throws {
        let data = try JSONEncoder().encode(Self.run(rate: 1000, p99: 3, answerP99: 2))
        #expect(String(decoding: data, as: UTF8.self).contains("offline") == false)
        let decoded = try JSONDecoder().decode(RunRecord.self, from: data)
        #expect(decoded.offline == nil && !decoded.isOffline)
    }

    @Test("the offline table's highest rate, and the paced line before delivery/accept")
    func pacedLine() {
        let offline = DeliveryTable(
            records: [
                Self.run(rate: 4000, p99: 0, answerP99: 20, offline: true),
                Self.run(rate: 5000, p99: 0, answerP99: 45, offline: true),
                Self.run(rate: 6000, p99: 0, answerP99: 80, offline: true),
            ],
            p99Limit: 50
        )
        #expect(offline.isOffline && offline.highestSustained?.rate == 5000 && !offline.sweepPassedEveryRate)
        let offlineText = offline.markdown(gatewayAccept: nil)
        #expect(offlineText.hasPrefix("## Paced acceptance, 1000 devices offline"))
        #expect(offlineText.contains("devices offline: 5000/s** (median p99 of the 200 45.0 ms)."))
        #expect(offlineText.contains("The next step, 6000/s, failed: p99 ≥ 50 ms (median p99 of the 200 80.0 ms)."))
        #expect(!offlineText.contains("delivery/"))

        let delivery = DeliveryTable(
            records: [Self.run(rate: 4000, p99: 30, answerP99: 10), Self.run(rate: 5000, p99: 70, answerP99: 40)],
            p99Limit: 50
        )
        let text = delivery.markdown(gatewayAccept: 10_000, pacedAccept: (rate: 5000, sweepEnded: false))
        let lines = text.split(separator: "\n").map(String.init)
        let paced = lines.firstIndex { $0.hasPrefix("delivery/paced-accept:") }
        let accept = lines.firstIndex { $0.hasPrefix("delivery/accept:") }
        #expect(
            lines[paced!] == "delivery/paced-accept: 0.80 (4000/s delivered with p99 < 50 ms / 5000/s answered with p99 < 50 ms, devices offline)"
        )
        #expect(lines[accept!] == "delivery/accept: 0.40 (4000/s with p99 < 50 ms / 10000/s accepted durably)")
        #expect(paced! < accept!)
        #expect(
            DeliveryTable.pacedRatioLine(delivered: 5000, answered: 6000, p99Limit: 50, sweepEnded: true)
                == "delivery/paced-accept: 0.83 (5000/s delivered with p99 < 50 ms / 6000/s answered with p99 < 50 ms, devices offline; "
                + "the sweep's last rate, the highest not reached)"
        )
        // Without offline runs the summary is as before: no paced line.
        #expect(!delivery.markdown(gatewayAccept: 10_000).contains("paced-accept"))
        // Without the h2load figure the paced line stands alone.
        let pacedOnly = delivery.markdown(gatewayAccept: nil, pacedAccept: (rate: 5000, sweepEnded: false))
        #expect(pacedOnly.contains("delivery/paced-accept: 0.80") && !pacedOnly.contains("delivery/accept:"))
        // A sweep whose every rate passed says its highest rate is only a lower bound.
        let passing = DeliveryTable(records: [Self.run(rate: 4000, p99: 30, answerP99: 10)], p99Limit: 50)
        #expect(passing.sweepPassedEveryRate && passing.markdown(gatewayAccept: nil).contains("the highest was not reached"))
        #expect(!delivery.markdown(gatewayAccept: nil).contains("the highest was not reached"))
    }
}
