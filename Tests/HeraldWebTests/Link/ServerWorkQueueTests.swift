import HeraldTestTiers
import NIOCore
import NIOPosix
import Testing

@testable import HeraldDelivery
@testable import HeraldWeb

@Suite("Web port: server work queue", .tier(.unit))
struct ServerWorkQueueTests {
    @Test("work runs in the processing task and its future completes with the result")
    func runs() async throws {
        let queue = ServerWorkQueue()
        let loop = MultiThreadedEventLoopGroup.singleton.next()
        try await withThrowingDiscardingTaskGroup { group in
            group.addTask { await queue.process() }
            let value = try await queue.run(on: loop) { 41 + 1 }.get()
            #expect(value == 42)
            queue.finish()
        }
    }
}
