import HeraldCore
import HeraldDeviceLink
import HeraldStore
import HeraldTestTiers
import Testing

@testable import HeraldDelivery
@testable import HeraldWeb

@Suite("Device link: web push subscriptions in the connection state machine, and their endpoints", .tier(.unit))
struct DeviceLinkWebPushStateTests {
    typealias Machine = DeviceLinkConnection.StateMachine

    static let token = DeviceToken(hex: String(repeating: "3d", count: 32))!
    /// RFC 8292 §3.2's example key, in base64url without padding.
    static let key = "BA1Hxzyi1RUM1b5wjxsn7nGxAszw2u61m164i3MrAIxHF6YK5h4SDYic-dRuU_RCPCfA5aq9ojSwk5Y2EmClBPs"

    static func request(key: String = key, id: String = "w1") -> DeviceLinkWebPushSubscriptionRequest {
        DeviceLinkWebPushSubscriptionRequest(id: id, origin: "https://shop.example", applicationServerKey: key, token: token)
    }

    private func authenticatedMachine() -> Machine {
        var machine = Machine(allowsEnrolment: false)
        _ = machine.received(.success(.hello(.device(id: "d1", secret: "s"))))
        _ = machine.authenticated(deviceID: "d1", name: "mac", secret: nil, tokens: [])
        return machine
    }

    @Test(
        "web-push-subscribe waits for the store; the device hears its endpoint before the engine routes to it; unsubscribing tells the engine first"
    )
    func subscribeAndUnsubscribe() {
        var machine = Machine(allowsEnrolment: false)
        #expect(
            machine.received(.success(.webPushSubscribe(Self.request())))
                == [.send(.error(DeviceLinkError(code: .notAuthenticated, message: "send hello first", id: "w1")))]
        )
        #expect(
            machine.received(.success(.webPushUnsubscribe(id: "w2", token: Self.token)))
                == [.send(.error(DeviceLinkError(code: .notAuthenticated, message: "send hello first", id: "w2")))]
        )
        machine = authenticatedMachine()
        #expect(machine.received(.success(.webPushSubscribe(Self.request()))) == [.subscribeWebPush(Self.request(), deviceID: "d1")])
        #expect(machine.isWaitingForStore)
        // An unsubscription sent meanwhile waits its turn.
        #expect(machine.received(.success(.webPushUnsubscribe(id: "w2", token: Self.token))) == [])
        let subscribed = DeviceLinkWebPushSubscription(id: "w1", token: Self.token, endpoint: "https://h:1/push/\(Self.token.hex)", isNew: true)
        #expect(
            machine.webPushSubscribed(subscribed) == [
                .send(.webPushSubscribed(subscribed)), .tokenRegistered(Self.token), .unsubscribeWebPush(id: "w2", token: Self.token, deviceID: "d1"),
            ]
        )
        let unsubscribed = DeviceLinkWebPushUnsubscription(id: "w2", token: Self.token, retiredAtMilliseconds: 1234)
        #expect(
            machine.webPushUnsubscribed(unsubscribed) == [
                .tokenUnregistered(Self.token, atMilliseconds: 1234), .send(.webPushUnsubscribed(unsubscribed)),
            ]
        )
        #expect(!machine.isWaitingForStore)
    }

    @Test("a subscription that replaced another of the same origin and key tells the engine the other ended, after routing the new one")
    func replacement() {
        var machine = authenticatedMachine()
        _ = machine.received(.success(.webPushSubscribe(Self.request())))
        let old = DeviceToken(hex: String(repeating: "01", count: 32))!
        let subscribed = DeviceLinkWebPushSubscription(id: "w1", token: Self.token, endpoint: "https://h:1/push/\(Self.token.hex)", isNew: true)
        #expect(
            machine.webPushSubscribed(subscribed, replaced: (old, 99)) == [
                .send(.webPushSubscribed(subscribed)), .tokenRegistered(Self.token), .tokenUnregistered(old, atMilliseconds: 99),
            ]
        )
        #expect(!machine.isWaitingForStore)
    }

    @Test(
        "an applicationServerKey that is not a P-256 public key gets invalid-application-server-key at once, with the request's id",
        arguments: [
            "not base64url!",
            "BA1Hxzyi1RUM1b5wjxsn7nGxAszw2u61m164i3MrAIxHF6YK5h4SDYic",  // too short
            "AA1Hxzyi1RUM1b5wjxsn7nGxAszw2u61m164i3MrAIxHF6YK5h4SDYic-dRuU_RCPCfA5aq9ojSwk5Y2EmClBPs",  // not 0x04
            "BA1Hxzyi1RUM1b5wjxsn7nGxAszw2u61m164i3MrAIxHF6YK5h4SDYic-dRuU_RCPCfA5aq9ojSwk5Y2EmDlBPs",  // off the curve
            "",
        ]
    )
    func badKey(_ key: String) {
        var machine = authenticatedMachine()
        let actions = machine.received(.success(.webPushSubscribe(Self.request(key: key))))
        guard case .send(.error(let error))? = actions.first, actions.count == 1 else {
            Issue.record("expected one error, got \(actions)")
            return
        }
        #expect(error.code == .invalidApplicationServerKey)
        #expect(error.id == "w1")
        #expect(!machine.isWaitingForStore)
    }

    @Test("a key in base64 with padding or the standard alphabet goes to the store as base64url without padding")
    func keyNormalised() throws {
        var machine = authenticatedMachine()
        let padded = Self.key.replacingOccurrences(of: "-", with: "+").replacingOccurrences(of: "_", with: "/") + "="
        let actions = machine.received(.success(.webPushSubscribe(Self.request(key: padded))))
        #expect(actions == [.subscribeWebPush(Self.request(), deviceID: "d1")])
    }

    @Test("an endpoint is the origin when one is set, else the provider port with the device's host (127.0.0.1 when unknown)")
    func endpoints() async {
        var endpoints = WebPushEndpoints()
        #expect(await endpoints.endpoint(for: Self.token, linkHost: nil) == "https://127.0.0.1:2197/push/\(Self.token.hex)")
        endpoints.providerPort = { WebPushEndpoints.ProviderPort(scheme: "http", port: 8080) }
        #expect(await endpoints.endpoint(for: Self.token, linkHost: "herald.local") == "http://herald.local:8080/push/\(Self.token.hex)")
        endpoints.providerPort = { nil }
        #expect(await endpoints.endpoint(for: Self.token, linkHost: "herald.local") == nil)
        endpoints.origin = "https://push.example"
        #expect(await endpoints.endpoint(for: Self.token, linkHost: "herald.local") == "https://push.example/push/\(Self.token.hex)")
    }

    @Test("every event a device may report is one the engine traces, the web app's three included")
    func reportEventsAreTraced() {
        let reportable = Set(DeviceLinkReportEvent.allKnown.map(\.rawValue))
        #expect(reportable == Set(TraceEventKind.deviceReports.map(\.rawValue)))
        #expect(reportable.isSuperset(of: ["decrypted", "shown", "not-shown"]))
    }

    @Test("the device's host comes from its Host header without the port; anything that is not a host is unknown")
    func linkHosts() {
        #expect(WebPushEndpoints.linkHost(fromHostHeader: "Herald.Local:2196") == "herald.local")
        #expect(WebPushEndpoints.linkHost(fromHostHeader: "192.168.1.5") == "192.168.1.5")
        #expect(WebPushEndpoints.linkHost(fromHostHeader: "[::1]:2196") == "[::1]")
        for header in [nil, "", ":2196", "a b", "evil.example/path", "a@b", "[::1", "[zz]", "ex\u{e4}mple", String(repeating: "a", count: 256)] {
            #expect(WebPushEndpoints.linkHost(fromHostHeader: header) == nil, "\(String(describing: header))")
        }
    }
}
