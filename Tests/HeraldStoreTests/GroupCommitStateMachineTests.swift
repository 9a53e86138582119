import HeraldTestTiers
import Testing

@testable import HeraldStore

@Suite("Group commit state machine", .tier(.unit))
struct GroupCommitStateMachineTests {
    typealias Machine = GroupCommitStateMachine<Int, String>

    @Test("The first item starts the writer; later ones join its queue")
    func firstItemStartsWriter() {
        var machine = Machine(maximumBatchSize: 10, maximumPending: 100)
        guard case .startWriter = machine.enqueue(1) else {
            Issue.record("expected startWriter")
            return
        }
        guard case .queued = machine.enqueue(2) else {
            Issue.record("expected queued")
            return
        }
        guard case .commit(let batch) = machine.nextBatch() else {
            Issue.record("expected a batch")
            return
        }
        #expect(batch == [1, 2])
        guard case .stop = machine.nextBatch() else {
            Issue.record("expected stop")
            return
        }
        guard case .startWriter = machine.enqueue(3) else {
            Issue.record("an idle writer must restart")
            return
        }
    }

    @Test("A batch takes at most the maximum, in order")
    func batchesAreBounded() {
        var machine = Machine(maximumBatchSize: 3, maximumPending: 100)
        for item in 1...7 { _ = machine.enqueue(item) }
        var batches: [[Int]] = []
        while case .commit(let batch) = machine.nextBatch() { batches.append(batch) }
        #expect(batches == [[1, 2, 3], [4, 5, 6], [7]])
    }

    @Test("A full queue rejects with overloaded")
    func fullQueueRejects() {
        var machine = Machine(maximumBatchSize: 3, maximumPending: 2)
        _ = machine.enqueue(1)
        _ = machine.enqueue(2)
        guard case .rejected(let error) = machine.enqueue(3) else {
            Issue.record("expected a rejection")
            return
        }
        #expect(error == .overloaded)
        #expect(machine.pendingCount == 2)
    }

    @Test("Shutdown while idle finishes at once and rejects later items")
    func shutdownWhileIdle() {
        var machine = Machine(maximumBatchSize: 3, maximumPending: 10)
        guard case .resumeNow = machine.shutdown("a") else {
            Issue.record("expected resumeNow")
            return
        }
        guard case .rejected(let error) = machine.enqueue(1) else {
            Issue.record("expected a rejection")
            return
        }
        #expect(error == .shutDown)
        guard case .resumeNow = machine.shutdown("b") else {
            Issue.record("a second shutdown returns at once")
            return
        }
    }

    @Test("Shutdown while writing drains the queue before the waiters resume")
    func shutdownDrains() {
        var machine = Machine(maximumBatchSize: 2, maximumPending: 10)
        for item in 1...3 { _ = machine.enqueue(item) }
        guard case .wait = machine.shutdown("a") else {
            Issue.record("expected wait")
            return
        }
        guard case .wait = machine.shutdown("b") else {
            Issue.record("expected wait")
            return
        }
        guard case .rejected = machine.enqueue(4) else {
            Issue.record("no item after shutdown")
            return
        }
        guard case .commit(let first) = machine.nextBatch() else {
            Issue.record("expected a batch")
            return
        }
        guard case .commit(let second) = machine.nextBatch() else {
            Issue.record("expected a batch")
            return
        }
        #expect(first + second == [1, 2, 3])
        guard case .stopAndFinishShutdown(let waiters) = machine.nextBatch() else {
            Issue.record("expected finish")
            return
        }
        #expect(waiters == ["a", "b"])
    }
}
