import Foundation
import HeraldCore
import HeraldDeviceLink
import HeraldTestSupport
import HeraldTestTiers
import Testing

@Suite("Device link: server → client frames", .tier(.inProcess))
struct DeviceLinkServerMessageTests {
    static let apnsID = NotificationID("8f0e2c2a-1b4e-4d2a-9c53-2f1a0f6b7e01")!
    static let token = DeviceToken(hex: String(repeating: "ab", count: 32))!

    static func notification(payload: String, expiration: Int64? = nil, collapseID: String? = nil) -> DeviceLinkNotification {
        DeviceLinkNotification(
            .fixture(
                token: token,
                id: apnsID,
                expiration: expiration,
                collapseID: collapseID,
                acceptedAt: 1_700_000_000_123,
                payload: payload
            ),
            attempt: 2
        )
    }

    @Test("every message survives a round trip through its frame")
    func roundTrip() throws {
        let messages: [DeviceLinkServerMessage] = [
            .welcome(DeviceLinkWelcome(deviceID: "d1", name: "phone")),
            .welcome(DeviceLinkWelcome(deviceID: "d1", name: "phone", secret: "s3cret")),
            .registered(DeviceLinkRegistration(id: "r1", bundleID: "com.example.app", environment: .sandbox, token: Self.token, isNew: true)),
            .registered(DeviceLinkRegistration(id: nil, bundleID: "com.example.app", environment: .production, token: Self.token, isNew: false)),
            .unregistered(
                DeviceLinkUnregistration(
                    id: "r2",
                    bundleID: "com.example.app",
                    environment: .sandbox,
                    token: Self.token,
                    unregisteredAtMilliseconds: 42
                )
            ),
            .notification(Self.notification(payload: #"{"aps":{"alert":"hi"}}"#, expiration: 0, collapseID: "c1")),
            .notification(Self.notification(payload: "{}")),
            .error(DeviceLinkError(code: .unknownNotification, message: "never sent", apnsID: Self.apnsID.text)),
            .error(DeviceLinkError(code: .malformedFrame, message: "bad \"json\"", id: "r7")),
            .error(DeviceLinkError(code: .deviceOffline, message: "offline", retryAfterMilliseconds: 1500)),
        ]
        for message in messages {
            #expect(try DeviceLinkServerMessage(frame: message.frame()) == message)
        }
    }

    @Test("a notification frame embeds the payload byte for byte, not re-encoded")
    func payloadVerbatim() throws {
        let payload = "{ \"aps\" : {\"alert\":\"caf\\u00e9\", \"badge\": 1.0e0},\n  \"z\":1, \"a\":[ ] }"
        let frame = DeviceLinkServerMessage.notification(Self.notification(payload: payload)).frame()
        #expect(String(decoding: frame, as: UTF8.self).hasSuffix(#""payload":\#(payload)}"#))
        guard case .notification(let decoded) = try DeviceLinkServerMessage(frame: frame) else {
            Issue.record("not a notification")
            return
        }
        #expect(decoded.payload == Array(payload.utf8))
    }

    @Test("a notification frame has the documented members and is valid JSON")
    func notificationShape() throws {
        let frame = DeviceLinkServerMessage.notification(Self.notification(payload: #"{"aps":{}}"#)).frame()
        let object = try #require(try JSONSerialization.jsonObject(with: Data(frame)) as? [String: Any])
        #expect(
            Set(object.keys) == [
                "type", "apnsID", "token", "bundleID", "topic", "pushType", "priority", "expiration", "collapseID", "acceptedAt", "attempt",
                "payload",
            ]
        )
        #expect(object["type"] as? String == "notification")
        #expect(object["attempt"] as? Int == 2)
        #expect(object["acceptedAt"] as? Int64 == 1_700_000_000_123)
        #expect(object["expiration"] is NSNull)
    }

    @Test("extensionTimeout is written only when true, and a frame without it reads as false")
    func extensionTimeoutMember() throws {
        var notification = Self.notification(payload: #"{"aps":{}}"#)
        notification.extensionTimeout = true
        let frame = DeviceLinkServerMessage.notification(notification).frame()
        let object = try #require(try JSONSerialization.jsonObject(with: Data(frame)) as? [String: Any])
        #expect(object["extensionTimeout"] as? Bool == true)
        #expect(try DeviceLinkServerMessage(frame: frame) == .notification(notification))
        let plain = DeviceLinkServerMessage.notification(Self.notification(payload: #"{"aps":{}}"#)).frame()
        #expect(!String(decoding: plain, as: UTF8.self).contains("extensionTimeout"))
        guard case .notification(let decoded) = try DeviceLinkServerMessage(frame: plain) else {
            Issue.record("not a notification")
            return
        }
        #expect(!decoded.extensionTimeout)
    }

    @Test("an error frame always has id and apnsID, null when absent")
    func errorShape() throws {
        let frame = DeviceLinkServerMessage.error(DeviceLinkError(code: .notAuthenticated, message: "send hello first")).frame()
        #expect(
            String(decoding: frame, as: UTF8.self)
                == #"{"type":"error","code":"not-authenticated","message":"send hello first","id":null,"apnsID":null}"#
        )
    }

    @Test(
        "malformed server frames are refused",
        arguments: [
            #"{"type":"welcome"}"#,
            #"{"type":"registered","id":"r1","bundleID":"b","environment":"sandbox","token":"xyz","new":true}"#,
            #"{"type":"registered","id":"r1","bundleID":"b","environment":"sandbox","token":"abababababababab","new":"yes"}"#,
            #"{"type":"unregistered","bundleID":"b","environment":"sandbox","token":"abababababababab","at":1.5}"#,
            #"{"type":"notification","apnsID":"8f0e2c2a-1b4e-4d2a-9c53-2f1a0f6b7e01"}"#,
            #"{"type":"notification","apnsID":"8f0e2c2a-1b4e-4d2a-9c53-2f1a0f6b7e01","token":"abababababababab","bundleID":"b","topic":"b","pushType":"alert","priority":10,"expiration":null,"collapseID":null,"acceptedAt":1,"attempt":1,"payload":[1]}"#,
            #"{"type":"error","message":"no code"}"#,
        ]
    )
    func malformed(text: String) {
        #expect(throws: DeviceLinkError.self) { try DeviceLinkServerMessage(frame: Array(text.utf8)) }
    }

    @Test("an unknown type from a newer server is unknown-type, and an unknown error code is data")
    func forwardCompatible() throws {
        do {
            _ = try DeviceLinkServerMessage(frame: Array(#"{"type":"announcement","text":"hi"}"#.utf8))
            Issue.record("decoded an unknown type")
        } catch {
            #expect(error.code == .unknownType)
        }
        let message = try DeviceLinkServerMessage(frame: Array(#"{"type":"error","code":"brand-new","message":"m"}"#.utf8))
        #expect(message == .error(DeviceLinkError(code: DeviceLinkErrorCode(rawValue: "brand-new"), message: "m")))
    }
}
