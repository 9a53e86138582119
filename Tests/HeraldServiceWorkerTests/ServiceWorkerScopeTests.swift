import HeraldServiceWorker
import HeraldTestTiers
import Testing

@Suite("The scope under Node: what a worker may use, and what it is refused", .tier(.process))
struct ServiceWorkerScopeTests {
    @Test("a tag replaces the notification on screen with it; getNotifications sees what is displayed")
    func tagReplaces() async throws {
        let fixture = try ServiceWorkerFixture(
            source: """
                self.addEventListener('push', (event) => {
                    const message = event.data.json();
                    event.waitUntil((async () => {
                        await self.registration.showNotification(message.title, { tag: 'chat' });
                        const shown = await self.registration.getNotifications({ tag: 'chat' });
                        console.log(shown.length, shown[0].title);
                    })());
                });
                """
        )
        _ = await fixture.host.start()
        let first = await fixture.host.push(data: ServiceWorkerFixture.json(#"{"title":"one"}"#))
        let second = await fixture.host.push(data: ServiceWorkerFixture.json(#"{"title":"two"}"#))
        #expect(first.console.map(\.text) == ["1 one"])
        #expect(second.console.map(\.text) == ["1 two"])
        #expect(await fixture.host.displayed.map(\.title) == ["two"])
        await fixture.stop()
    }

    @Test("setAppBadge(n), setAppBadge() and clearAppBadge(); a negative count is refused")
    func badge() async throws {
        let fixture = try ServiceWorkerFixture(
            source: """
                self.onpush = (event) => {
                    navigator.setAppBadge(3);
                    navigator.setAppBadge();
                    navigator.clearAppBadge();
                    event.waitUntil(navigator.setAppBadge(-1));
                };
                """
        )
        let push = await fixture.host.push(data: nil)
        #expect(push.badgeChanges == [.count(3), .flag, .cleared])
        #expect(push.badge == .cleared)
        #expect(push.errors.map(\.kind) == [.rejected])
        await fixture.stop()
    }

    @Test("text() of bytes that are not UTF-8 replaces them; json() of them throws a SyntaxError, reported")
    func notUTF8() async throws {
        let fixture = try ServiceWorkerFixture(
            source: """
                self.addEventListener('push', (event) => {
                    console.log(JSON.stringify(event.data.text()), event.data.arrayBuffer().byteLength);
                    event.data.json();
                });
                """
        )
        let push = await fixture.host.push(data: [0x61, 0xFF, 0xFE])
        #expect(push.console.map(\.text) == ["\"a\u{FFFD}\u{FFFD}\" 3"])
        #expect(push.errors.map(\.kind) == [.handler])
        #expect(push.error?.message.hasPrefix("SyntaxError") == true)
        await fixture.stop()
    }

    @Test("require, process and fetch are not Node's here: each is reported, and the host goes on")
    func nodeIsAbsent() async throws {
        let fixture = try ServiceWorkerFixture(
            source: """
                self.addEventListener('push', () => { require('fs'); });
                self.addEventListener('push', () => { process.exit(1); });
                self.addEventListener('push', (event) => { event.waitUntil(fetch('/api')); });
                """
        )
        let push = await fixture.host.push(data: nil)
        #expect(
            push.errors == [
                ServiceWorkerError(.handler, "ReferenceError: require is not defined"),
                ServiceWorkerError(.handler, "ReferenceError: process is not defined"),
                ServiceWorkerError(.rejected, "TypeError: fetch is not available in Herald's service worker scope (asked for /api)"),
            ]
        )
        #expect(push.listeners == 3)
        #expect(await fixture.host.isRunning)
        await fixture.stop()
    }

    @Test("importScripts reads a file beside sw.js, and nothing outside its folder")
    func importScripts() async throws {
        let fixture = try ServiceWorkerFixture(
            source: """
                importScripts('helpers.js');
                self.addEventListener('push', () => {
                    console.log(greeting());
                    importScripts('../../etc/passwd');
                });
                """,
            files: ["helpers.js": "function greeting() { return 'hello from helpers'; }"]
        )
        let start = await fixture.host.start()
        #expect(start.errors.isEmpty, "\(start.errors)")
        let push = await fixture.host.push(data: nil)
        #expect(push.console.map(\.text) == ["hello from helpers"])
        #expect(push.error?.kind == .handler)
        #expect(push.error?.message.hasPrefix("NetworkError: importScripts") == true)
        await fixture.stop()
    }

    @Test("clients.openWindow outside a notificationclick is refused; matchAll lists the windows opened")
    func openWindowRule() async throws {
        let fixture = try ServiceWorkerFixture(
            source: """
                self.addEventListener('push', (event) => { event.waitUntil(clients.openWindow('/now')); });
                self.addEventListener('notificationclick', (event) => {
                    event.waitUntil(clients.openWindow('/inbox').then(() => clients.matchAll()).then((all) => console.log(all.map((c) => c.url).join())));
                });
                """
        )
        let push = await fixture.host.push(data: nil)
        #expect(push.openedWindows.isEmpty)
        #expect(push.error?.message.hasPrefix("InvalidAccessError") == true)
        let click = await fixture.host.notificationClick(WebNotification(id: "n", title: "t"), action: "reply")
        #expect(click.openedWindows == ["https://example.com/inbox"])
        #expect(click.console.map(\.text) == ["https://example.com/inbox"])
        await fixture.stop()
    }

    @Test("a worker past the action limit: the first ones kept, one error")
    func actionLimit() async throws {
        let fixture = try ServiceWorkerFixture(
            source: "self.onpush = () => { for (let i = 0; i < 50; i++) console.log(i); };",
            adjust: { $0.maximumActionsPerEvent = 5 }
        )
        let push = await fixture.host.push(data: nil)
        #expect(push.console.map(\.text) == ["0", "1", "2", "3", "4"])
        #expect(push.errors == [ServiceWorkerError(.protocol, "more than 5 actions in one event; the rest are ignored")])
        await fixture.stop()
    }

    @Test("events from callers at the same moment run one at a time, each with its own outcome")
    func concurrentCallers() async throws {
        let fixture = try ServiceWorkerFixture(
            source: """
                self.onpush = (event) => {
                    const title = event.data.text();
                    event.waitUntil(new Promise((resolve) => setTimeout(resolve, 20)).then(() => self.registration.showNotification(title)));
                };
                """
        )
        let host = fixture.host
        let titles = await withTaskGroup(of: [String].self) { group in
            for index in 0..<8 {
                group.addTask { await host.push(data: Array("\(index)".utf8)).shown.map(\.title) }
            }
            return await group.reduce(into: [[String]]()) { $0.append($1) }
        }
        #expect(titles.sorted { $0.joined() < $1.joined() } == (0..<8).map { ["\($0)"] })
        #expect(await host.displayed.count == 8)
        await fixture.stop()
    }

    @Test("a notification the user dismisses leaves the screen, and the worker hears notificationclose")
    func dismissed() async throws {
        let fixture = try ServiceWorkerFixture(
            source: """
                self.onpush = (event) => event.waitUntil(self.registration.showNotification('hello', { data: { n: 1 } }));
                self.onnotificationclose = (event) => console.log('closed', event.notification.title, event.notification.data.n);
                """
        )
        let push = await fixture.host.push(data: nil)
        let shown = try #require(push.shown.first)
        let close = await fixture.host.notificationClose(shown)
        #expect(close.console.map(\.text) == ["closed hello 1"])
        #expect(await fixture.host.displayed.isEmpty)
        await fixture.stop()
    }
}
