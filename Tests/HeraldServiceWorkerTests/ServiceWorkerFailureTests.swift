import Foundation
import HeraldServiceWorker
import HeraldTestTiers
import Testing

@Suite("A service worker that goes wrong: reported, never fatal to the host", .tier(.process))
struct ServiceWorkerFailureTests {
    @Test("a script that throws at load: the start says so, and so does every push")
    func throwsAtLoad() async throws {
        let fixture = try ServiceWorkerFixture(source: "throw new Error('broken build');")
        let start = await fixture.host.start()
        #expect(start.errors == [ServiceWorkerError(.load, "Error: broken build")])
        let push = await fixture.host.push(data: nil)
        #expect(push.errors == [ServiceWorkerError(.load, "Error: broken build")])
        #expect(push.shown.isEmpty)
        await fixture.stop()
    }

    @Test("a script that does not parse is a load error naming the SyntaxError")
    func doesNotParse() async throws {
        let fixture = try ServiceWorkerFixture(source: "self.addEventListener('push', (event) => {")
        let start = await fixture.host.start()
        #expect(start.error?.kind == .load)
        #expect(start.error?.message.hasPrefix("SyntaxError") == true)
        await fixture.stop()
    }

    @Test("a listener that throws, and a waitUntil promise that rejects, are the event's errors")
    func handlerAndRejection() async throws {
        let fixture = try ServiceWorkerFixture(
            source: """
                self.addEventListener('push', (event) => {
                    event.waitUntil(Promise.reject(new RangeError('quota')));
                    throw new TypeError('undefined is not a function');
                });
                """
        )
        let push = await fixture.host.push(data: nil)
        #expect(
            push.errors == [
                ServiceWorkerError(.handler, "TypeError: undefined is not a function"),
                ServiceWorkerError(.rejected, "RangeError: quota"),
            ]
        )
        await fixture.stop()
    }

    @Test("a waitUntil that never settles ends at the budget; the worker still takes the next event")
    func neverResolves() async throws {
        let fixture = try ServiceWorkerFixture(
            source: """
                self.addEventListener('push', (event) => {
                    if (event.data.text() === 'hang') event.waitUntil(new Promise(() => {}));
                    else event.waitUntil(self.registration.showNotification('fine'));
                });
                """,
            budget: .milliseconds(300)
        )
        let hung = await fixture.host.push(data: Array("hang".utf8))
        #expect(hung.errors.map(\.kind) == [.timedOut])
        let next = await fixture.host.push(data: Array("go".utf8))
        #expect(next.errors.isEmpty, "\(next.errors)")
        #expect(next.shown.map(\.title) == ["fine"])
        await fixture.stop()
    }

    @Test("an endless loop in a listener ends at the budget")
    func endlessListener() async throws {
        let fixture = try ServiceWorkerFixture(source: "self.onpush = () => { while (true) {} };", budget: .milliseconds(300))
        let push = await fixture.host.push(data: nil)
        #expect(push.errors.map(\.kind) == [.timedOut])
        await fixture.stop()
    }

    @Test("an endless loop in a timer blocks Node: the host kills it at budget and grace, the next event starts a new one")
    func endlessTimer() async throws {
        let fixture = try ServiceWorkerFixture(
            source: """
                let count = 0;
                self.onpush = (event) => {
                    count += 1;
                    if (event.data) setTimeout(() => { while (true) {} }, 0);
                    event.waitUntil(new Promise((resolve) => setTimeout(resolve, 50)));
                    console.log('push', count);
                };
                """,
            budget: .milliseconds(300)
        )
        let stuck = await fixture.host.push(data: [1])
        #expect(stuck.console.map(\.text) == ["push 1"])
        #expect(stuck.errors.map(\.kind) == [.timedOut])
        #expect(stuck.error?.message.hasSuffix("its process was killed") == true)
        #expect(await !fixture.host.isRunning)
        let next = await fixture.host.push(data: nil)
        #expect(next.errors.isEmpty, "\(next.errors)")
        #expect(next.console.map(\.text) == ["push 1"], "a new process loaded the script again")
        await fixture.stop()
    }

    @Test("a line over the limit is an error of its event; the event's other actions are kept")
    func hugeLine() async throws {
        let fixture = try ServiceWorkerFixture(
            source: """
                self.onpush = (event) => {
                    console.log('x'.repeat(100000));
                    event.waitUntil(self.registration.showNotification('after'));
                };
                """
        )
        let push = await fixture.host.push(data: nil)
        #expect(push.errors.map(\.kind) == [.protocol])
        #expect(push.error?.message.hasPrefix("a line of 100") == true)
        #expect(push.shown.map(\.title) == ["after"])
        await fixture.stop()
    }

    @Test("a node that is not there: the start and the push say so")
    func noNode() async throws {
        let fixture = try ServiceWorkerFixture(source: "", adjust: { $0.node = NodeExecutable(path: "/nonexistent/node") })
        let start = await fixture.host.start()
        #expect(start.errors.map(\.kind) == [.exited])
        #expect(start.error?.message.hasPrefix("cannot start /nonexistent/node") == true)
        let push = await fixture.host.push(data: nil)
        #expect(push.errors.map(\.kind) == [.exited])
        #expect(await !fixture.host.isRunning)
        await fixture.stop()
    }
}
