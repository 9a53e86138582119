import HeraldCore
import HeraldDeviceLink
import HeraldTestTiers
import Testing

@Suite("Device link: broadcast channel frames", .tier(.unit))
struct DeviceLinkChannelFrameTests {
    static let channel = "dHN0LXNyY2gtY2hubA=="

    @Test("subscribe-channel and unsubscribe-channel read as documented and survive a round trip; so do the answers and broadcast")
    func documented() throws {
        let subscribe = DeviceLinkClientMessage.subscribeChannel(
            DeviceLinkChannelRequest(id: "c1", bundleID: "com.example.app", environment: .production, channelID: Self.channel)
        )
        let text = #"{"type":"subscribe-channel","id":"c1","bundleID":"com.example.app","environment":"production","channel":"\#(Self.channel)"}"#
        #expect(try DeviceLinkClientMessage(frame: Array(text.utf8)) == subscribe)
        // The environment defaults to sandbox, as for register.
        let unsubscribe = try DeviceLinkClientMessage(
            frame: Array(#"{"type":"unsubscribe-channel","bundleID":"com.example.app","channel":"\#(Self.channel)"}"#.utf8)
        )
        #expect(
            unsubscribe
                == .unsubscribeChannel(DeviceLinkChannelRequest(id: nil, bundleID: "com.example.app", environment: .sandbox, channelID: Self.channel))
        )
        for message in [subscribe, unsubscribe] {
            #expect(try DeviceLinkClientMessage(frame: message.frame()) == message)
        }
        let payload = Array(#"{"aps":{"event":"update","timestamp":1700000000,"content-state":{"minutes":5}}}"#.utf8)
        let answers: [DeviceLinkServerMessage] = [
            .channelSubscribed(DeviceLinkChannelReply(id: "c1", channelID: Self.channel, isNew: true)),
            .channelUnsubscribed(DeviceLinkChannelReply(id: nil, channelID: Self.channel)),
            .broadcast(
                DeviceLinkBroadcast(
                    channelID: Self.channel,
                    bundleID: "com.example.app",
                    environment: .sandbox,
                    requestID: "6a1f0c9e-6d0e-4b4e-9a57-7f6c1b2f3e4d",
                    priority: 10,
                    expiration: 1_700_003_600,
                    acceptedAtMilliseconds: 1_700_000_000_123,
                    payload: payload
                )
            ),
        ]
        for answer in answers {
            #expect(try DeviceLinkServerMessage(frame: answer.frame()) == answer)
        }
        // The payload is copied in byte for byte.
        let frame = String(decoding: answers[2].frame(), as: UTF8.self)
        #expect(frame.contains(#""payload":{"aps":{"event":"update","timestamp":1700000000,"content-state":{"minutes":5}}}"#))
    }

    @Test("a malformed channel id or bundle id, or a missing channel, is refused with its code and the request's id")
    func limits() {
        func frame(channel: String = DeviceLinkChannelFrameTests.channel, bundle: String = "com.a") -> String {
            #"{"type":"subscribe-channel","id":"s","bundleID":"\#(bundle)","channel":"\#(channel)"}"#
        }
        #expect(decodingError(frame()) == nil)
        #expect(decodingError(frame(channel: "not base64!"))?.code == .invalidChannel)
        #expect(decodingError(frame(channel: "not base64!"))?.id == "s")
        #expect(decodingError(frame(channel: ""))?.code == .invalidChannel)
        #expect(decodingError(frame(channel: String(repeating: "A", count: 68)))?.code == .invalidChannel)
        #expect(decodingError(frame(bundle: "com a"))?.code == .invalidBundleID)
        #expect(decodingError(#"{"type":"unsubscribe-channel","id":"u","bundleID":"com.a"}"#)?.code == .malformedFrame)
        #expect(serverDecodingError(#"{"type":"broadcast","channel":"x","bundleID":"a","environment":"sandbox","requestID":"r"}"#) != nil)
    }
}
