import HeraldTestTiers
import Testing

@testable import HeraldDelivery

@Suite("The engine's inbox: every queued event in one batch", .tier(.unit))
struct EngineInboxTests {
    @Test("The consumer takes everything queued at once, in order; a waiting consumer gets the next event as its batch")
    func batches() async {
        let inbox = EngineInbox<Int>()
        #expect(inbox.push(1))
        #expect(inbox.push(2))
        #expect(inbox.push(3))
        #expect(await inbox.next() == [1, 2, 3])
        let waiting = Task { await inbox.next() }
        await inbox.consumerWaits()
        #expect(inbox.push(4))
        #expect(await waiting.value == [4])
        #expect(inbox.push(5))
        #expect(inbox.push(6))
        #expect(await inbox.next() == [5, 6])
    }

    @Test("Finishing: what was queued is still taken, later events are dropped, then the consumer ends")
    func finish() async {
        let inbox = EngineInbox<Int>()
        #expect(inbox.push(1))
        inbox.finish()
        #expect(!inbox.push(2))
        #expect(await inbox.next() == [1])
        #expect(await inbox.next() == nil)
        #expect(await inbox.next() == nil)
    }

    @Test("A waiting consumer ends when the inbox finishes, and when its task is cancelled")
    func waitingConsumerEnds() async {
        let finished = EngineInbox<Int>()
        let first = Task { await finished.next() }
        await finished.consumerWaits()
        finished.finish()
        #expect(await first.value == nil)

        let cancelled = EngineInbox<Int>()
        let second = Task { await cancelled.next() }
        await cancelled.consumerWaits()
        second.cancel()
        #expect(await second.value == nil)
        // A cancelled consumer takes nothing more; what is pushed stays queued.
        #expect(cancelled.push(7))
    }

    @Test("Events pushed from many threads at once all arrive, each producer's in its order")
    func concurrentProducers() async {
        let inbox = EngineInbox<Int>()
        let producers = 8
        let each = 2_000
        let consumer = Task {
            var seen: [Int] = []
            while seen.count < producers * each, let batch = await inbox.next() { seen += batch }
            return seen
        }
        await withTaskGroup(of: Void.self) { group in
            for producer in 0..<producers {
                group.addTask {
                    for index in 0..<each { _ = inbox.push(producer * each + index) }
                }
            }
        }
        let seen = await consumer.value
        #expect(seen.count == producers * each)
        for producer in 0..<producers {
            let mine = seen.filter { $0 / each == producer }
            #expect(mine == Array(producer * each..<(producer + 1) * each))
        }
    }
}
