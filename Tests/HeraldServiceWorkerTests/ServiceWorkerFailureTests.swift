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

    @Test("a script path that does not exist, and an origin that is not one, are load errors")
    func badConfiguration() async throws {
        let missing = try ServiceWorkerFixture(source: "", adjust: { $0.scriptPath += ".missing" })
        let start = await missing.host.start()
        #expect(start.errors.map(\.kind) == [.load])
        #expect(start.error?.message.contains("ENOENT") == true)
        await missing.stop()

        let badOrigin = try ServiceWorkerFixture(source: "", adjust: { $0.origin = "example.com" })
        let push = await badOrigin.host.push(data: nil)
        #expect(push.errors == [ServiceWorkerError(.load, "the origin \"example.com\" is not an https: or http: origin")])
        #expect(await !badOrigin.host.isRunning)
        await badOrigin.stop()
    }

    @Test("node that ends during an event: the event says how, and the next event starts a new one")
    func nodeEnds() async throws {
        // Not a sandbox (docs/service-worker-scope.md): a function from Node's own realm reaches its process.
        let fixture = try ServiceWorkerFixture(
            source: """
                self.onpush = (event) => {
                    if (event.data) setTimeout.constructor('return process')().exit(3);
                    event.waitUntil(self.registration.showNotification('back'));
                };
                """
        )
        let ended = await fixture.host.push(data: [1])
        #expect(ended.errors == [ServiceWorkerError(.exited, "node exited with status 3 during the push event")])
        let next = await fixture.host.push(data: nil)
        #expect(next.errors.isEmpty, "\(next.errors)")
        #expect(next.shown.map(\.title) == ["back"])
        await fixture.stop()
    }

    @Test("stop() during an event ends it at once, as exited; a later event starts the worker again")
    func stopDuringEvent() async throws {
        let fixture = try ServiceWorkerFixture(
            source: """
                self.onpush = (event) => {
                    if (event.data) event.waitUntil(new Promise(() => {}));
                    else event.waitUntil(self.registration.showNotification('again'));
                };
                """
        )
        let host = fixture.host
        _ = await host.start()
        async let hanging = host.push(data: [1])
        let clock = ContinuousClock()
        let deadline = clock.now + .seconds(10)
        while await !host.isHandlingEvent, clock.now < deadline { try await Task.sleep(for: .milliseconds(5)) }
        await host.stop()
        let ended = await hanging
        #expect(ended.errors == [ServiceWorkerError(.exited, "the worker was stopped during the push event")])
        #expect(ended.duration < .seconds(10), "not the 30 s budget")
        let next = await host.push(data: nil)
        #expect(next.shown.map(\.title) == ["again"])
        await fixture.stop()
    }
}
