import HeraldCore
import HeraldDeviceLink
import HeraldStore
import HeraldTestSupport
import HeraldTestTiers
import Testing

@testable import HeraldDelivery
@testable import HeraldWeb

@Suite("Device link: live server and client", .tier(.inProcess))
struct DeviceLinkServerTests {
    static let app = "com.example.app"

    @Test("hello with the right secret is welcomed, pings are answered, and a close is answered with 1000")
    func hello() async throws {
        try await LinkServerFixture.with { fixture in
            let credentials = try await fixture.addDevice(name: "Kitchen iPad")
            let client = try await fixture.connect()
            let welcome = try await client.hello(.device(id: credentials.device.id, secret: credentials.secret))
            #expect(welcome == DeviceLinkWelcome(deviceID: credentials.device.id, name: "Kitchen iPad"))
            try await client.ping()
            #expect(await client.close() == DeviceLinkClosure(code: 1000, reason: nil))
            _ = try await fixture.engineInput { if case .sessionClosed = $0 { true } else { false } }
        }
    }

    @Test("a wrong secret gets unauthorized, then the server closes with 1008")
    func wrongSecret() async throws {
        try await LinkServerFixture.with { fixture in
            let credentials = try await fixture.addDevice()
            let client = try await fixture.connect()
            let error = await linkError { try await client.hello(.device(id: credentials.device.id, secret: "wrong")) }
            #expect(error?.code == .unauthorized)
            #expect(await client.closed().code == 1008)
        }
    }

    @Test("a frame before hello is not-authenticated, and hello still works on the same connection")
    func frameBeforeHello() async throws {
        try await LinkServerFixture.with { fixture in
            let credentials = try await fixture.addDevice()
            let client = try await fixture.connect()
            try await client.send(.register(DeviceLinkAppRequest(id: "early", bundleID: Self.app, environment: .sandbox)))
            guard case .error(let error) = try await client.nextMessage() else {
                Issue.record("expected an error frame")
                return
            }
            #expect(error.code == .notAuthenticated)
            #expect(error.id == "early")
            try await client.hello(.device(id: credentials.device.id, secret: credentials.secret))
            #expect(try await client.register(bundleID: Self.app, environment: .sandbox).isNew)
        }
    }

    @Test("before hello, malformed and unknown frames, a malformed hello and an oversize frame get not-authenticated")
    func anyFrameBeforeHello() async throws {
        // Six exchanges before the hello: on a loaded machine (the whole suite runs at once on two cores) they may take
        // longer than the default 30 s for a hello, which this test is not about ("no hello in time" is).
        var configuration = WebConfiguration()
        configuration.helloTimeout = .seconds(600)
        try await LinkServerFixture.with(configuration: configuration) { fixture in
            let credentials = try await fixture.addDevice()
            let client = try await fixture.connect()
            let frames: [[UInt8]] = [
                Array(#"{"type":"register","bundleID":"#.utf8),
                Array(#"{"type":"subscribe","id":"x1"}"#.utf8),
                Array(#"{"type":"hello","device":"\#(credentials.device.id)"}"#.utf8),
                Array(#"{"type":"report","apnsID":"8f0e2c2a-1b4e-4d2a-9c53-2f1a0f6b7e01","event":"exploded"}"#.utf8),
                Array(#"{"type":"screen","screen":{"name":"early"}}"#.utf8),
                [UInt8](repeating: UInt8(ascii: " "), count: 70 * 1024) + Array("{}".utf8),
            ]
            for frame in frames {
                try await client.sendRawText(frame)
                guard case .error(let error) = try await client.nextMessage() else {
                    Issue.record("expected an error frame")
                    return
                }
                #expect(error.code == .notAuthenticated, "\(error)")
            }
            // The unknown type kept its id; the connection still takes a hello.
            try await client.sendRawText(Array(#"{"type":"marker","id":"end"}"#.utf8))
            guard case .error(let marker) = try await client.nextMessage() else {
                Issue.record("expected the marker's error")
                return
            }
            #expect(marker.code == .notAuthenticated)
            #expect(marker.id == "end")
            try await client.hello(.device(id: credentials.device.id, secret: credentials.secret))
            #expect(try await client.register(bundleID: Self.app, environment: .sandbox).isNew)
        }
    }

    @Test("a newer link of the device closes the older one with 4000 at its hello; other devices' links stay")
    func newerLinkReplacesOlder() async throws {
        try await LinkServerFixture.with { fixture in
            let credentials = try await fixture.addDevice()
            let older = try await fixture.connect(as: credentials)
            let opened = try await fixture.engineInput { if case .sessionOpened = $0 { true } else { false } }
            guard case .sessionOpened(let olderSession, _) = opened else { return }
            let bystander = try await fixture.connect(as: try await fixture.addDevice(name: "other"))

            // Connected, not yet authenticated: nothing happens to the older link.
            let newer = try await fixture.connect()
            try await older.ping()
            try await newer.hello(.device(id: credentials.device.id, secret: credentials.secret))
            let closure = try await withDeadline { await older.closed() }
            #expect(closure == DeviceLinkClosure(code: DeviceLinkClosure.replacedCode, reason: "replaced by a newer link of the device"))
            let closed = try await fixture.engineInput { if case .sessionClosed = $0 { true } else { false } }
            guard case .sessionClosed(let closedID) = closed else { return }
            #expect(closedID == olderSession.id)

            // The newer link and the other device's link keep working; the device is online through the newer one.
            #expect(try await newer.register(bundleID: Self.app, environment: .sandbox).isNew)
            try await bystander.ping()
            #expect(fixture.server.console.isOnline(deviceID: credentials.device.id))
        }
    }

    @Test("malformed JSON, an unknown type and an oversize frame each get their error; the next frame works")
    func malformedThenValid() async throws {
        try await LinkServerFixture.with { fixture in
            let client = try await fixture.connect(as: try await fixture.addDevice())
            let bad: [(text: [UInt8], code: DeviceLinkErrorCode)] = [
                (Array(#"{"type":"register","bundleID":"#.utf8), .malformedFrame),
                (Array(#"{"type":"subscribe","id":"x1"}"#.utf8), .unknownType),
                (Array(#"{"type":"report","apnsID":"8f0e2c2a-1b4e-4d2a-9c53-2f1a0f6b7e01","event":"exploded"}"#.utf8), .unknownEvent),
                (Array(#"{"type":"register","id":"x2","bundleID":"com.example.app","environment":"staging"}"#.utf8), .invalidEnvironment),
                ([UInt8](repeating: UInt8(ascii: " "), count: 70 * 1024) + Array("{}".utf8), .frameTooLarge),
            ]
            for (text, code) in bad {
                try await client.sendRawText(text)
                guard case .error(let error) = try await client.nextMessage() else {
                    Issue.record("expected an error frame for \(code)")
                    return
                }
                #expect(error.code == code)
                // The connection and its state survive: a valid request right after works.
                let registration = try await client.register(bundleID: Self.app, environment: .sandbox)
                #expect(registration.bundleID == Self.app)
            }
            // Nothing else was sent: the next frame is the answer to a marker.
            try await client.sendRawText(Array(#"{"type":"marker","id":"end"}"#.utf8))
            guard case .error(let marker) = try await client.nextMessage() else {
                Issue.record("expected the marker's error")
                return
            }
            #expect(marker.id == "end")
        }
    }

    @Test("a token is stable across reconnects")
    func stableToken() async throws {
        try await LinkServerFixture.with { fixture in
            let credentials = try await fixture.addDevice()
            let first = try await fixture.connect(as: credentials)
            let issued = try await first.register(bundleID: Self.app, environment: .sandbox)
            #expect(issued.isNew)
            let other = try await first.register(bundleID: Self.app, environment: .production)
            #expect(other.token != issued.token)
            await first.close()

            let second = try await fixture.connect(as: credentials)
            let opened = try await fixture.engineInput { event in
                if case .sessionOpened(_, let tokens) = event { tokens.count == 2 } else { false }
            }
            guard case .sessionOpened(_, let tokens) = opened else { return }
            #expect(Set(tokens) == [issued.token, other.token])
            let again = try await second.register(bundleID: Self.app, environment: .sandbox)
            #expect(again.token == issued.token)
            #expect(!again.isNew)
        }
    }

    @Test("unregister stops the token at the clock's time; the next register issues a new one")
    func unregister() async throws {
        try await LinkServerFixture.with { fixture in
            let client = try await fixture.connect(as: try await fixture.addDevice())
            let issued = try await client.register(bundleID: Self.app, environment: .sandbox)
            fixture.clock.advance(seconds: 5)
            let unregistration = try await client.unregister(bundleID: Self.app, environment: .sandbox)
            #expect(unregistration.token == issued.token)
            #expect(unregistration.unregisteredAtMilliseconds == fixture.clock.nowMilliseconds())
            let told = try await fixture.engineInput { if case .tokenUnregistered = $0 { true } else { false } }
            guard case .tokenUnregistered(let token, let at) = told else { return }
            #expect(token == issued.token)
            #expect(at == unregistration.unregisteredAtMilliseconds)

            let notRegistered = await linkError { _ = try await client.unregister(bundleID: Self.app, environment: .sandbox) }
            #expect(notRegistered?.code == .notRegistered)
            let reissued = try await client.register(bundleID: Self.app, environment: .sandbox)
            #expect(reissued.isNew)
            #expect(reissued.token != issued.token)
        }
    }

    @Test("self-enrolment: refused by default, and when allowed the welcome carries a secret that works")
    func enrolment() async throws {
        try await LinkServerFixture.with { fixture in
            let client = try await fixture.connect()
            let refused = await linkError { try await client.hello(.enrol(name: "new phone")) }
            #expect(refused?.code == .enrolmentDisabled)
        }
        var configuration = WebConfiguration()
        configuration.allowsEnrolment = true
        try await LinkServerFixture.with(configuration: configuration) { fixture in
            let client = try await fixture.connect()
            let welcome = try await client.hello(.enrol(name: "new phone"))
            let secret = try #require(welcome.secret)
            #expect(welcome.name == "new phone")
            await client.close()
            let again = try await fixture.connect()
            let second = try await again.hello(.device(id: welcome.deviceID, secret: secret))
            #expect(second.secret == nil)
        }
    }

    @Test("a second hello is already-authenticated")
    func secondHello() async throws {
        try await LinkServerFixture.with { fixture in
            let credentials = try await fixture.addDevice()
            let client = try await fixture.connect(as: credentials)
            let error = await linkError { try await client.hello(.device(id: credentials.device.id, secret: credentials.secret)) }
            #expect(error?.code == .alreadyAuthenticated)
            #expect(try await client.register(bundleID: Self.app, environment: .sandbox).isNew)
        }
    }

    @Test("a store failure is an internal error; the connection survives")
    func storeFailure() async throws {
        let registry = LinkTestRegistry(clock: ManualWallClock())
        try await LinkServerFixture.with(registry: registry) { fixture in
            let client = try await fixture.connect(as: try await fixture.addDevice())
            await registry.failEverything(with: .databaseBusy)
            let error = await linkError { _ = try await client.register(bundleID: Self.app, environment: .sandbox) }
            #expect(error?.code == .internal)
            await registry.failEverything(with: nil)
            #expect(try await client.register(bundleID: Self.app, environment: .sandbox).isNew)
        }
    }

    @Test("the engine hears of sessions, tokens, acks and reports; its session writes notification and error frames")
    func engineWiring() async throws {
        try await LinkServerFixture.with { fixture in
            let credentials = try await fixture.addDevice()
            let client = try await fixture.connect(as: credentials)
            let opened = try await fixture.engineInput { if case .sessionOpened = $0 { true } else { false } }
            guard case .sessionOpened(let session, let tokens) = opened else { return }
            #expect(session.deviceID == credentials.device.id)
            #expect(tokens.isEmpty)

            let registration = try await client.register(bundleID: Self.app, environment: .sandbox)
            let registered = try await fixture.engineInput { if case .tokenRegistered = $0 { true } else { false } }
            guard case .tokenRegistered(let token, let sessionID) = registered else { return }
            #expect(token == registration.token)
            #expect(sessionID == session.id)

            let payload = #"{"aps" : {"alert":"Hello"}, "custom":[1, 2.50]}"#
            let notification = AcceptedNotification.fixture(
                token: registration.token,
                collapseID: "c1",
                acceptedAt: fixture.clock.nowMilliseconds(),
                payload: payload
            )
            session.deliver(NotificationDelivery(notification: notification, attempt: 3))
            guard case .notification(let received) = try await client.nextMessage() else {
                Issue.record("expected a notification frame")
                return
            }
            #expect(received == DeviceLinkNotification(notification, attempt: 3))
            #expect(received.payload == Array(payload.utf8))

            client.acknowledge(notification.id)
            let acked = try await fixture.engineInput { if case .acknowledged = $0 { true } else { false } }
            guard case .acknowledged(let ackedID, let ackSession) = acked else { return }
            #expect(ackedID == notification.id)
            #expect(ackSession == session.id)

            // A report is checked against the store: the notification must be there, sent to this device's token.
            try await fixture.store.accept(notification)
            client.report(DeviceLinkReport(apnsID: notification.id, event: .action, detail: Array(#"{"action":"reply"}"#.utf8)))
            let reported = try await fixture.engineInput { if case .reported = $0 { true } else { false } }
            guard case .reported(let report, let reportSession) = reported else { return }
            let detail = #"{"device":"\#(credentials.device.id)","action":"reply"}"#
            #expect(report == DeviceReport(notificationID: notification.id, event: .action, detailJSON: detail))
            #expect(reportSession == session.id)

            session.refuse(notification.id, code: "unknown-notification", message: "not outstanding")
            guard case .error(let refusal) = try await client.nextMessage() else {
                Issue.record("expected an error frame")
                return
            }
            #expect(refusal.code == .unknownNotification)
            #expect(refusal.apnsID == notification.id.text)

            await client.close()
            let closed = try await fixture.engineInput { if case .sessionClosed = $0 { true } else { false } }
            guard case .sessionClosed(let closedID) = closed else { return }
            #expect(closedID == session.id)
        }
    }

    @Test("no hello in time closes the connection with 1008")
    func helloTimeout() async throws {
        var configuration = WebConfiguration()
        configuration.helloTimeout = .milliseconds(100)
        try await LinkServerFixture.with(configuration: configuration) { fixture in
            let client = try await fixture.connect()
            guard case .error(let error) = try await client.nextMessage() else {
                Issue.record("expected an error frame")
                return
            }
            #expect(error.code == .notAuthenticated)
            #expect(await client.closed().code == 1008)
        }
    }

    @Test("graceful shutdown says going away (1001) to every device")
    func shutdown() async throws {
        try await LinkServerFixture.with { fixture in
            let client = try await fixture.connect(as: try await fixture.addDevice())
            await fixture.stopServer()
            #expect(await client.closed().code == 1001)
        }
    }

    @Test("the upgrade is only on /device-link")
    func wrongPath() async throws {
        try await LinkServerFixture.with { fixture in
            var configuration = DeviceLinkClient.Configuration(host: "127.0.0.1", port: fixture.port)
            configuration.path = "/elsewhere"
            await #expect(throws: DeviceLinkClientError.upgradeRefused) {
                _ = try await DeviceLinkClient.connect(configuration: configuration, eventLoopGroup: fixture.clientGroup)
            }
        }
    }
}

/// The device-link error `body` threw, or `nil` when it threw nothing (any other error fails the test).
func linkError(_ body: () async throws -> Void) async -> DeviceLinkError? {
    do {
        try await body()
        return nil
    } catch let error as DeviceLinkError {
        return error
    } catch {
        Issue.record("unexpected error \(error)")
        return nil
    }
}
