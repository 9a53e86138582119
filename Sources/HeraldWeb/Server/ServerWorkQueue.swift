import NIOCore
import Synchronization

/// Runs the asynchronous work of channel handlers (store calls, HTTP responders) as child tasks of the
/// server's `run()`, so that no handler starts an unowned task and shutdown waits for the work in flight.
///
/// A handler calls ``run(on:_:)`` from its event loop and gets a future; the server's ``process()`` loop
/// starts one child task per item. Work that never runs (the server stopped first) fails its future with
/// ``NotRun`` instead of leaving it pending.
final class ServerWorkQueue: Sendable {
    /// The error of work that was dropped because the server stopped.
    struct NotRun: Error {}

    private final class Item: Sendable {
        private let body: @Sendable () async -> Void
        private let drop: @Sendable () -> Void
        private let started = Atomic<Bool>(false)

        init(body: @escaping @Sendable () async -> Void, drop: @escaping @Sendable () -> Void) {
            self.body = body
            self.drop = drop
        }

        func run() async {
            started.store(true, ordering: .relaxed)
            await body()
        }

        deinit {
            // The last reference may go on any thread, even before the result of `body` reached its event loop:
            // only an item that never ran may fail its promise.
            if !started.load(ordering: .relaxed) { drop() }
        }
    }

    private let items: AsyncStream<Item>
    private let input: AsyncStream<Item>.Continuation

    init() {
        (items, input) = AsyncStream.makeStream(of: Item.self)
    }

    /// Runs `body` in the server's task group; the future completes on `eventLoop`.
    func run<Value: Sendable>(on eventLoop: any EventLoop, _ body: @escaping @Sendable () async -> Value) -> EventLoopFuture<Value> {
        let promise = eventLoop.makePromise(of: Value.self)
        let item = Item(body: { promise.succeed(await body()) }, drop: { promise.fail(NotRun()) })
        if case .terminated = input.yield(item) { promise.fail(NotRun()) }
        return promise.futureResult
    }

    /// Runs queued work, each item in its own child task, until ``finish()`` and all of it is done.
    func process() async {
        await withDiscardingTaskGroup { group in
            for await item in items {
                group.addTask { await item.run() }
            }
        }
    }

    /// Takes no more work; ``process()`` returns once what was queued is done.
    func finish() {
        input.finish()
    }
}
