import HeraldCore
import HeraldDeviceLink
import HeraldStore
import HeraldTestSupport
import HeraldTestTiers
import Testing

@testable import HeraldDelivery
@testable import HeraldWeb

@Suite("Device link: end to end with the running engine and a real SQLiteStore", .tier(.inProcess))
struct DeviceLinkEndToEndTests {
    static let app = "com.example.app"

    /// Stores the notification as the gateway does, then hands it to the engine.
    private func accept(_ notification: AcceptedNotification, _ fixture: LinkServerFixture) async throws {
        try await fixture.store.accept(notification)
        fixture.engine.accepted(notification)
    }

    /// Accepts a push whose alert is `alert` for `token`, as the gateway would: stored, then handed to the engine.
    private func acceptAlert(_ alert: String, to token: DeviceToken, _ fixture: LinkServerFixture) async throws -> AcceptedNotification {
        let notification = AcceptedNotification.fixture(
            token: token,
            acceptedAt: fixture.clock.nowMilliseconds(),
            payload: #"{"aps":{"alert":"\#(alert)"}}"#
        )
        try await accept(notification, fixture)
        return notification
    }

    private func nextNotification(_ client: DeviceLinkClient) async throws -> DeviceLinkNotification {
        let message = try await client.nextMessage()
        guard case .notification(let notification) = message else { throw UnexpectedMessage(message: message) }
        return notification
    }

    /// Waits until the server handled everything the client sent before and the engine processed and wrote it.
    ///
    /// Not a ping: the server answers pings at once, while a `report` still waits for its store check. The error for a
    /// frame of an unknown type comes after the answers to every frame before it (frames are handled in order).
    private func settle(_ client: DeviceLinkClient, _ fixture: LinkServerFixture) async throws {
        try await client.sendRawText(Array(#"{"type":"settled?","id":"settle"}"#.utf8))
        let message = try await client.nextMessage()
        guard case .error(let error) = message, error.id == "settle" else { throw UnexpectedMessage(message: message) }
        await fixture.engine.waitUntilIdle()
    }

    private func nextError(_ client: DeviceLinkClient) async throws -> DeviceLinkError {
        let message = try await client.nextMessage()
        guard case .error(let error) = message else { throw UnexpectedMessage(message: message) }
        return error
    }

    /// A device connected with one app registered, and a notification for that app accepted, received and acknowledged.
    private func deliveredNotification(
        _ fixture: LinkServerFixture
    ) async throws -> (credentials: DeviceCredentials, client: DeviceLinkClient, notification: AcceptedNotification) {
        let credentials = try await fixture.addDevice(name: "owner")
        let client = try await fixture.connect(as: credentials)
        let registration = try await client.register(bundleID: Self.app, environment: .sandbox)
        let notification = try await acceptAlert("Hi", to: registration.token, fixture)
        client.acknowledge(try await nextNotification(client).apnsID)
        try await settle(client, fixture)
        return (credentials, client, notification)
    }

    struct UnexpectedMessage: Error {
        var message: DeviceLinkServerMessage
    }

    @Test("an online device receives an accepted notification and acks it; the trace shows sent and acknowledged")
    func deliverAndAcknowledge() async throws {
        try await LinkServerFixture.with(runsEngine: true) { fixture in
            let client = try await fixture.connect(as: try await fixture.addDevice())
            let registration = try await client.register(bundleID: Self.app, environment: .sandbox)
            let notification = try await acceptAlert("Hello", to: registration.token, fixture)

            let received = try await nextNotification(client)
            #expect(received == DeviceLinkNotification(notification, attempt: 1))
            client.acknowledge(received.apnsID)
            try await settle(client, fixture)

            let trace = try await fixture.store.trace(notification.id)
            #expect(trace.map(\.kind) == [.accepted, .sent, .acknowledged])
            #expect(try await fixture.store.notification(notification.id)?.state == .delivered)
        }
    }

    @Test("a notification sent but not acknowledged is sent again, attempt 2, after the device reconnects")
    func redeliveryAfterReconnect() async throws {
        try await LinkServerFixture.with(runsEngine: true) { fixture in
            let credentials = try await fixture.addDevice()
            let first = try await fixture.connect(as: credentials)
            let registration = try await first.register(bundleID: Self.app, environment: .sandbox)
            let notification = try await acceptAlert("Hello", to: registration.token, fixture)
            #expect(try await nextNotification(first).attempt == 1)
            await first.close()  // before the ack

            // The device reconnects: its tokens come from the store, so the notification follows the welcome.
            let second = try await fixture.connect(as: credentials)
            let again = try await nextNotification(second)
            #expect(again.apnsID == notification.id)
            #expect(again.attempt == 2)
            second.acknowledge(again.apnsID)
            try await settle(second, fixture)
            let trace = try await fixture.store.trace(notification.id).map(\.kind)
            #expect(trace.filter { $0 == .sent }.count == 2)
            #expect(trace.last == .acknowledged)
            #expect(try await fixture.store.notification(notification.id)?.state == .delivered)
        }
    }

    @Test("a notification for an offline device waits, and is sent when it connects")
    func offlineThenOnline() async throws {
        try await LinkServerFixture.with(runsEngine: true) { fixture in
            let credentials = try await fixture.addDevice()
            let setup = try await fixture.connect(as: credentials)
            let registration = try await setup.register(bundleID: Self.app, environment: .sandbox)
            await setup.close()
            await fixture.engine.waitUntilIdle()
            #expect(!fixture.engine.isOnline(deviceID: credentials.device.id))

            let notification = try await acceptAlert("Hello", to: registration.token, fixture)
            await fixture.engine.waitUntilIdle()
            #expect(try await fixture.store.trace(notification.id).map(\.kind) == [.accepted, .stored])

            let client = try await fixture.connect(as: credentials)
            let received = try await nextNotification(client)
            #expect(received.apnsID == notification.id)
            client.acknowledge(received.apnsID)
            client.report(DeviceLinkReport(apnsID: received.apnsID, event: .displayed, detail: Array(#"{"title":"Hello"}"#.utf8)))
            try await settle(client, fixture)
            let trace = try await fixture.store.trace(notification.id)
            #expect(trace.map(\.kind) == [.accepted, .stored, .sent, .acknowledged, .displayed])
            #expect(trace.last?.detailJSON == #"{"device":"\#(credentials.device.id)","title":"Hello"}"#)
        }
    }

    @Test("a report from the device the notification was sent to is traced naming that device (apns-id in any case)")
    func reportFromOwner() async throws {
        try await LinkServerFixture.with(runsEngine: true) { fixture in
            let (credentials, client, notification) = try await deliveredNotification(fixture)
            let upper = try #require(NotificationID(notification.id.text.uppercased()))
            #expect(upper.text != notification.id.text)
            let detail = #"{"device":"someone else","title":"","body":"Hi"}"#
            client.report(DeviceLinkReport(apnsID: upper, event: .displayed, detail: Array(detail.utf8)))
            try await settle(client, fixture)
            let trace = try await fixture.store.trace(notification.id)
            #expect(trace.map(\.kind) == [.accepted, .sent, .acknowledged, .displayed])
            #expect(trace.last?.detailJSON == #"{"device":"\#(credentials.device.id)","title":"","body":"Hi"}"#)
        }
    }

    @Test("a report on a notification sent on an earlier link of the device is checked against the store and traced")
    func reportFromOwnerOnNewLink() async throws {
        try await LinkServerFixture.with(runsEngine: true) { fixture in
            let (credentials, client, notification) = try await deliveredNotification(fixture)
            // The link that was sent the notification is gone: the new one knows nothing of it but the store does.
            _ = await client.close()
            let again = try await fixture.connect(as: credentials)
            again.report(DeviceLinkReport(apnsID: notification.id, event: .dismissed, detail: Array(#"{"reason":"user"}"#.utf8)))
            try await settle(again, fixture)
            let trace = try await fixture.store.trace(notification.id)
            #expect(trace.map(\.kind) == [.accepted, .sent, .acknowledged, .dismissed])
            #expect(trace.last?.detailJSON == #"{"device":"\#(credentials.device.id)","reason":"user"}"#)
        }
    }

    @Test("a report from another device gets unknown-notification, and the trace stays as it was")
    func reportFromAnotherDevice() async throws {
        try await LinkServerFixture.with(runsEngine: true) { fixture in
            let (_, _, notification) = try await deliveredNotification(fixture)
            let before = try await fixture.store.trace(notification.id)
            #expect(before.map(\.kind) == [.accepted, .sent, .acknowledged])

            let other = try await fixture.connect(as: try await fixture.addDevice(name: "other"))
            other.report(DeviceLinkReport(apnsID: notification.id, event: .dismissed, detail: Array(#"{"reason":"user"}"#.utf8)))
            let error = try await nextError(other)
            #expect(error.code == .unknownNotification)
            #expect(error.apnsID == notification.id.text)
            try await settle(other, fixture)
            #expect(try await fixture.store.trace(notification.id) == before)
        }
    }

    @Test("a report about an apns-id the server does not know gets unknown-notification")
    func reportUnknownNotification() async throws {
        try await LinkServerFixture.with(runsEngine: true) { fixture in
            let client = try await fixture.connect(as: try await fixture.addDevice())
            let stray = NotificationID.random()
            client.report(DeviceLinkReport(apnsID: stray, event: .displayed))
            let error = try await nextError(client)
            #expect(error.code == .unknownNotification)
            #expect(error.apnsID == stray.text)
            try await settle(client, fixture)
            #expect(try await fixture.store.trace(stray).isEmpty)
        }
    }

    @Test("an ack for a notification never sent on the link gets unknown-notification")
    func unknownAck() async throws {
        try await LinkServerFixture.with(runsEngine: true) { fixture in
            let client = try await fixture.connect(as: try await fixture.addDevice())
            let stray = NotificationID.random()
            client.acknowledge(stray)
            guard case .error(let error) = try await client.nextMessage() else {
                Issue.record("expected an error frame")
                return
            }
            #expect(error.code == .unknownNotification)
            #expect(error.apnsID == stray.text)
        }
    }

    @Test("unregistering over the link discards what waits for the token")
    func unregisterDiscards() async throws {
        try await LinkServerFixture.with(runsEngine: true) { fixture in
            let client = try await fixture.connect(as: try await fixture.addDevice())
            let registration = try await client.register(bundleID: Self.app, environment: .sandbox)
            let notification = try await acceptAlert("Hello", to: registration.token, fixture)
            _ = try await nextNotification(client)  // outstanding: never acked
            _ = try await client.unregister(bundleID: Self.app, environment: .sandbox)
            try await settle(client, fixture)
            #expect(try await fixture.store.notification(notification.id)?.state == .discarded)
            #expect(try await fixture.store.lookup(registration.token)?.isActive == false)
        }
    }
}
