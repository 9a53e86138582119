import HeraldCore
import HeraldDeviceLink
import HeraldTestTiers
import Testing

@Suite("Device link: Live Activity token frames", .tier(.unit))
struct DeviceLinkActivityTokenFrameTests {
    static let token = DeviceToken(hex: String(repeating: "5f", count: 32))!

    @Test("activity-token and retire-activity-token read as documented and survive a round trip; so do their answers")
    func documented() throws {
        let text =
            #"{"type":"activity-token","id":"a1","bundleID":"com.example.app","environment":"sandbox","kind":"push-to-start","#
            + #""activityType":"DeliveryAttributes","token":"\#(String(repeating: "5F", count: 32))"}"#
        let expected = DeviceLinkClientMessage.activityToken(
            DeviceLinkActivityToken(
                id: "a1",
                bundleID: "com.example.app",
                environment: .sandbox,
                kind: .pushToStart,
                activityType: "DeliveryAttributes",
                token: Self.token
            )
        )
        #expect(try DeviceLinkClientMessage(frame: Array(text.utf8)) == expected)
        let retire = DeviceLinkClientMessage.retireActivityToken(id: "a2", token: Self.token)
        #expect(try DeviceLinkClientMessage(frame: Array(#"{"type":"retire-activity-token","id":"a2","token":"\#(Self.token.hex)"}"#.utf8)) == retire)
        for message in [expected, retire] {
            #expect(try DeviceLinkClientMessage(frame: message.frame()) == message)
        }
        let answers: [DeviceLinkServerMessage] = [
            .activityTokenRegistered(DeviceLinkActivityTokenReply(id: "a1", token: Self.token, isNew: true)),
            .activityTokenRetired(DeviceLinkActivityTokenReply(id: "a2", token: Self.token, retiredAtMilliseconds: 1_700_000_000_123)),
        ]
        for answer in answers {
            #expect(try DeviceLinkServerMessage(frame: answer.frame()) == answer)
        }
    }

    @Test("a wrong kind, a token out of limits, a bad activity type or bundle id are refused with their codes and the request's id")
    func limits() {
        func frame(
            kind: String = "activity",
            type: String = "T",
            token: String = String(repeating: "ab", count: 32),
            bundle: String = "com.a"
        ) -> String {
            #"{"type":"activity-token","id":"x","bundleID":"\#(bundle)","kind":"\#(kind)","activityType":"\#(type)","token":"\#(token)"}"#
        }
        #expect(decodingError(frame(kind: "device"))?.code == .invalidKind)
        #expect(decodingError(frame(kind: "device"))?.id == "x")
        #expect(decodingError(frame(token: String(repeating: "ab", count: 7)))?.code == .invalidToken)
        #expect(decodingError(frame(token: String(repeating: "ab", count: 101)))?.code == .invalidToken)
        #expect(decodingError(frame(token: "abc"))?.code == .invalidToken)
        #expect(decodingError(frame(token: String(repeating: "zz", count: 32)))?.code == .invalidToken)
        #expect(decodingError(frame(token: String(repeating: "ab", count: 100))) == nil)
        #expect(decodingError(frame(type: ""))?.code == .malformedFrame)
        #expect(decodingError(frame(type: String(repeating: "t", count: 256)))?.code == .malformedFrame)
        #expect(decodingError(frame(type: String(repeating: "t", count: 255))) == nil)
        #expect(decodingError(frame(bundle: "com a"))?.code == .invalidBundleID)
        #expect(decodingError(#"{"type":"retire-activity-token","id":"y"}"#)?.code == .malformedFrame)
        #expect(DeviceLinkClientMessage.maximumActivityTokens == 64)
    }
}
