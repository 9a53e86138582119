import HeraldCore
import HeraldDeviceLink
import HeraldTestTiers
import Testing

@Suite("Device link: web push subscription frames and web app report events", .tier(.unit))
struct DeviceLinkWebPushFrameTests {
    static let token = DeviceToken(hex: String(repeating: "7c", count: 32))!
    /// RFC 8292 §3.2's example key (the frames do not check it: the server does).
    static let key = "BA1Hxzyi1RUM1b5wjxsn7nGxAszw2u61m164i3MrAIxHF6YK5h4SDYic-dRuU_RCPCfA5aq9ojSwk5Y2EmClBPs"

    @Test("web-push-subscribe and web-push-unsubscribe read as documented and survive a round trip; so do their answers")
    func documented() throws {
        let text =
            #"{"type":"web-push-subscribe","id":"w1","origin":"https://shop.example","applicationServerKey":"\#(Self.key)","#
            + #""token":"\#(String(repeating: "7C", count: 32))"}"#
        let subscribe = DeviceLinkClientMessage.webPushSubscribe(
            DeviceLinkWebPushSubscriptionRequest(id: "w1", origin: "https://shop.example", applicationServerKey: Self.key, token: Self.token)
        )
        #expect(try DeviceLinkClientMessage(frame: Array(text.utf8)) == subscribe)
        let unsubscribe = DeviceLinkClientMessage.webPushUnsubscribe(id: "w2", token: Self.token)
        #expect(
            try DeviceLinkClientMessage(frame: Array(#"{"type":"web-push-unsubscribe","id":"w2","token":"\#(Self.token.hex)"}"#.utf8)) == unsubscribe
        )
        for message in [subscribe, unsubscribe, .webPushUnsubscribe(id: nil, token: Self.token)] {
            #expect(try DeviceLinkClientMessage(frame: message.frame()) == message)
        }

        let endpoint = "https://127.0.0.1:2197/push/\(Self.token.hex)"
        let subscribed = #"{"type":"web-push-subscribed","id":"w1","token":"\#(Self.token.hex)","endpoint":"\#(endpoint)","isNew":true}"#
        let reply = DeviceLinkServerMessage.webPushSubscribed(
            DeviceLinkWebPushSubscription(id: "w1", token: Self.token, endpoint: endpoint, isNew: true)
        )
        #expect(try DeviceLinkServerMessage(frame: Array(subscribed.utf8)) == reply)
        let unsubscribed = #"{"type":"web-push-unsubscribed","id":"w2","token":"\#(Self.token.hex)","retiredAt":1700000000123}"#
        let retired = DeviceLinkServerMessage.webPushUnsubscribed(
            DeviceLinkWebPushUnsubscription(id: "w2", token: Self.token, retiredAtMilliseconds: 1_700_000_000_123)
        )
        #expect(try DeviceLinkServerMessage(frame: Array(unsubscribed.utf8)) == retired)
        for answer in [reply, retired] {
            #expect(try DeviceLinkServerMessage(frame: answer.frame()) == answer)
        }
        #expect(String(decoding: retired.frame(), as: UTF8.self) == unsubscribed)

        // A push service that answers 410 once the user removed the permission asks the device to tell it; the member is
        // written only then, and its absence is false.
        var telling = DeviceLinkWebPushSubscription(id: "w1", token: Self.token, endpoint: endpoint, isNew: true)
        #expect(!telling.unsubscribeOnPermissionRemoval)
        #expect(!String(decoding: reply.frame(), as: UTF8.self).contains("unsubscribeOnPermissionRemoval"))
        telling.unsubscribeOnPermissionRemoval = true
        let asks = DeviceLinkServerMessage.webPushSubscribed(telling)
        #expect(String(decoding: asks.frame(), as: UTF8.self).contains(#""unsubscribeOnPermissionRemoval":true"#))
        #expect(try DeviceLinkServerMessage(frame: asks.frame()) == asks)
        let notBool = subscribed.replacingOccurrences(of: "}", with: #","unsubscribeOnPermissionRemoval":"yes"}"#)
        #expect(throws: DeviceLinkError.self) { try DeviceLinkServerMessage(frame: Array(notBool.utf8)) }
    }

    @Test("removePermission is an interaction devices know, for a web app named by its origin")
    func removePermissionKind() throws {
        #expect(DeviceLinkInteraction.Kind.removePermission.isKnown)
        let frame = #"{"type":"interact","id":"console-1","bundleID":"https://shop.example","kind":"removePermission"}"#
        guard case .interact(let interaction) = try DeviceLinkServerMessage(frame: Array(frame.utf8)) else {
            Issue.record("not an interact: \(frame)")
            return
        }
        #expect(interaction.kind == .removePermission && interaction.bundleID == "https://shop.example")
    }

    @Test("an origin is lowercased and loses its scheme's default port; a host name, an IPv4 or a bracketed IPv6 address and a port are kept")
    func originsKept() {
        #expect(DeviceLinkClientMessage.webPushOrigin("HTTPS://Shop.Example") == "https://shop.example")
        #expect(DeviceLinkClientMessage.webPushOrigin("https://shop.example:443") == "https://shop.example")
        #expect(DeviceLinkClientMessage.webPushOrigin("http://shop.example:80") == "http://shop.example")
        #expect(DeviceLinkClientMessage.webPushOrigin("http://shop.example:443") == "http://shop.example:443")
        #expect(DeviceLinkClientMessage.webPushOrigin("https://localhost:8443") == "https://localhost:8443")
        #expect(DeviceLinkClientMessage.webPushOrigin("http://192.168.1.20:8080") == "http://192.168.1.20:8080")
        #expect(DeviceLinkClientMessage.webPushOrigin("https://[::1]:8443") == "https://[::1]:8443")
        #expect(DeviceLinkClientMessage.webPushOrigin("https://[FE80::1]") == "https://[fe80::1]")
        #expect(DeviceLinkClientMessage.webPushOrigin("https://a.b:08443") == "https://a.b:8443")
    }

    @Test(
        "an origin with a path, query, fragment, user, another scheme, no host, a bad port or over 255 bytes is not one",
        arguments: [
            "https://shop.example/", "https://shop.example/app", "https://shop.example?x=1", "https://shop.example#top",
            "https://user@shop.example", "ftp://shop.example", "wss://shop.example", "shop.example", "https://", "https://:443",
            "https://shop.example:", "https://shop.example:0", "https://shop.example:65536", "https://shop.example:-1",
            "https://shop.example:123456", "https://shop example", "https://shöp.example", "https://[::1", "https://[]", "https://[::1]x",
            "https://[g::1]", "https:// shop.example", "https://" + String(repeating: "a", count: 248),
        ]
    )
    func originsRefused(_ origin: String) {
        #expect(DeviceLinkClientMessage.webPushOrigin(origin) == nil)
    }

    @Test("a bad origin, token or a missing key are refused with their codes and the request's id; the origin is kept normalised")
    func refusals() throws {
        func frame(origin: String = "https://shop.example", token: String = String(repeating: "ab", count: 32), key: String? = Self.key) -> String {
            let keyMember = key.map { #","applicationServerKey":"\#($0)""# } ?? ""
            return #"{"type":"web-push-subscribe","id":"x","origin":"\#(origin)""# + keyMember + #","token":"\#(token)"}"#
        }
        #expect(decodingError(frame(origin: "https://shop.example/"))?.code == .invalidOrigin)
        #expect(decodingError(frame(origin: "https://shop.example/"))?.id == "x")
        #expect(decodingError(frame(origin: "https://" + String(repeating: "a", count: 248)))?.code == .invalidOrigin)
        #expect(decodingError(frame(origin: "https://" + String(repeating: "a", count: 247))) == nil)
        #expect(decodingError(frame(token: String(repeating: "ab", count: 7)))?.code == .invalidToken)
        #expect(decodingError(frame(token: String(repeating: "ab", count: 8))) == nil)
        #expect(decodingError(frame(token: String(repeating: "ab", count: 101)))?.code == .invalidToken)
        #expect(decodingError(frame(token: String(repeating: "ab", count: 100))) == nil)
        #expect(decodingError(frame(token: "abc"))?.code == .invalidToken)
        #expect(decodingError(frame(token: String(repeating: "zz", count: 32)))?.id == "x")
        #expect(decodingError(frame(key: nil))?.code == .malformedFrame)
        #expect(
            decodingError(#"{"type":"web-push-subscribe","id":"x","applicationServerKey":"k","token":"\#(Self.token.hex)"}"#)?.code == .malformedFrame
        )
        #expect(decodingError(#"{"type":"web-push-unsubscribe","id":"y"}"#)?.code == .malformedFrame)
        #expect(decodingError(#"{"type":"web-push-unsubscribe","id":"y","token":"12"}"#)?.code == .invalidToken)
        guard case .webPushSubscribe(let request) = try DeviceLinkClientMessage(frame: Array(frame(origin: "HTTPS://Shop.Example:443").utf8)) else {
            Issue.record("not a web-push-subscribe")
            return
        }
        #expect(request.origin == "https://shop.example")
    }

    @Test("the server's answers need their members: endpoint and isNew, retiredAt")
    func answersNeedTheirMembers() {
        #expect(serverDecodingError(#"{"type":"web-push-subscribed","id":"w1","token":"\#(Self.token.hex)","isNew":true}"#)?.code == .malformedFrame)
        #expect(
            serverDecodingError(#"{"type":"web-push-subscribed","id":"w1","token":"\#(Self.token.hex)","endpoint":"e"}"#)?.code == .malformedFrame
        )
        #expect(serverDecodingError(#"{"type":"web-push-unsubscribed","id":"w2","token":"\#(Self.token.hex)"}"#)?.code == .malformedFrame)
    }

    @Test("a report may say a web push message was decrypted, shown or not shown")
    func webAppReportEvents() throws {
        #expect(DeviceLinkReportEvent.decrypted.rawValue == "decrypted")
        #expect(DeviceLinkReportEvent.shown.rawValue == "shown")
        #expect(DeviceLinkReportEvent.notShown.rawValue == "not-shown")
        let apnsID = "8f0e2c2a-1b4e-4d2a-9c53-2f1a0f6b7e01"
        for event in ["decrypted", "shown", "not-shown"] {
            let text = #"{"type":"report","apnsID":"\#(apnsID)","event":"\#(event)","detail":{"reason":"r"}}"#
            let message = try DeviceLinkClientMessage(frame: Array(text.utf8))
            guard case .report(let report) = message else {
                Issue.record("not a report: \(message)")
                continue
            }
            #expect(report.event.rawValue == event)
            #expect(report.event.isKnown)
            #expect(try DeviceLinkClientMessage(frame: message.frame()) == message)
        }
        #expect(decodingError(#"{"type":"report","apnsID":"\#(apnsID)","event":"notshown"}"#)?.code == .unknownEvent)
    }
}
