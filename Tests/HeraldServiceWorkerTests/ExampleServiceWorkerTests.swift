import HeraldServiceWorker
import HeraldTestTiers
import Testing

@Suite("Examples/WebPush under Node: the site's sw.js and the silent one", .tier(.process))
struct ExampleServiceWorkerTests {
    @Test("sw.js shows the push's JSON as a notification, and a click closes it and opens its URL")
    func showsAndOpens() async throws {
        let fixture = ServiceWorkerFixture(example: "sw.js")
        let start = await fixture.host.start()
        #expect(start.errors.isEmpty, "\(start.errors)")
        #expect(await fixture.host.isRunning)

        let push = await fixture.host.push(
            data: ServiceWorkerFixture.json(#"{"title":"Order shipped","body":"Arrives Tuesday","url":"/orders/42","tag":"order-42"}"#)
        )
        #expect(push.errors.isEmpty, "\(push.errors)")
        #expect(push.listeners == 1)
        let shown = try #require(push.shown.first)
        #expect(push.shown.count == 1)
        #expect(shown.title == "Order shipped")
        #expect(shown.options.body == "Arrives Tuesday")
        #expect(shown.options.tag == "order-42")
        #expect(shown.options.data == .object(["url": .string("/orders/42")]))
        #expect(await fixture.host.displayed == [shown])

        let click = await fixture.host.notificationClick(shown)
        #expect(click.errors.isEmpty, "\(click.errors)")
        #expect(click.closed == [shown.id])
        #expect(click.openedWindows == ["https://example.com/orders/42"])
        #expect(await fixture.host.displayed.isEmpty)
        await fixture.stop()
        #expect(await !fixture.host.isRunning)
    }

    @Test("silent-sw.js receives the push, logs, and shows nothing")
    func silent() async throws {
        let fixture = ServiceWorkerFixture(example: "silent-sw.js")
        _ = await fixture.host.start()
        let push = await fixture.host.push(data: ServiceWorkerFixture.json(#"{"title":"Hello"}"#))
        #expect(push.errors.isEmpty, "\(push.errors)")
        #expect(push.listeners == 1)
        #expect(push.shown.isEmpty)
        #expect(push.console.map(\.text) == ["received a push of 17 characters and showed nothing"])
        await fixture.stop()
    }
}
