import HeraldCore
import HeraldDeviceLink
import HeraldTestTiers
import Testing

@Suite("Device link: the console's frames (screen, interact, interacted)", .tier(.inProcess))
struct ConsoleMessageTests {
    @Test("screen and interacted survive a round trip; the screen's JSON is kept byte for byte")
    func clientRoundTrip() throws {
        let screen = #"{ "name" : "Phone \"1\"", "capturedAt": 1700000000.25, "apps": [{"bundleID": "a.b", "center": {}}] }"#
        let messages: [DeviceLinkClientMessage] = [
            .screen(json: Array(screen.utf8)),
            .interacted(DeviceLinkInteractionResult(id: "console-1")),
            .interacted(DeviceLinkInteractionResult(id: "console-2", error: "no action \"X\"\non it")),
        ]
        for message in messages {
            #expect(try DeviceLinkClientMessage(frame: message.frame()) == message)
        }
        let frame = String(decoding: DeviceLinkClientMessage.screen(json: Array(screen.utf8)).frame(), as: UTF8.self)
        #expect(frame == #"{"type":"screen","screen":\#(screen)}"#)
        #expect(String(decoding: DeviceLinkClientMessage.interacted(.init(id: "i")).frame(), as: UTF8.self) == #"{"type":"interacted","id":"i"}"#)
    }

    @Test("interact survives a round trip, writes only the members it has, and keeps an unknown kind as data")
    func interactRoundTrip() throws {
        let messages: [DeviceLinkServerMessage] = [
            .interact(DeviceLinkInteraction(id: "c1", bundleID: "com.example.app", kind: .tap, identifier: "n1")),
            .interact(DeviceLinkInteraction(id: "c2", bundleID: "com.example.app", kind: .action, identifier: "n1", action: "REPLY", text: "ok ✓")),
            .interact(DeviceLinkInteraction(id: "c3", bundleID: "com.example.app", kind: .setState, state: "foreground")),
            .interact(DeviceLinkInteraction(id: "c4", bundleID: "com.example.app", kind: .playPause)),
        ]
        for message in messages {
            #expect(try DeviceLinkServerMessage(frame: message.frame()) == message)
        }
        let tap = DeviceLinkServerMessage.interact(DeviceLinkInteraction(id: "c1", bundleID: "a.b", kind: .tap, identifier: "n1"))
        #expect(String(decoding: tap.frame(), as: UTF8.self) == #"{"type":"interact","id":"c1","bundleID":"a.b","kind":"tap","identifier":"n1"}"#)
        let future = try DeviceLinkServerMessage(frame: Array(#"{"type":"interact","id":"c9","bundleID":"a.b","kind":"shake"}"#.utf8))
        guard case .interact(let interaction) = future else {
            Issue.record("expected an interact")
            return
        }
        #expect(interaction.kind.rawValue == "shake")
        #expect(!interaction.kind.isKnown)
        #expect(DeviceLinkInteraction.Kind.allKnown.allSatisfy { $0.isKnown })
    }

    @Test(
        "malformed console frames get malformed-frame, with the id when it could be read",
        arguments: [
            (#"{"type":"screen"}"#, nil),
            (#"{"type":"screen","screen":null}"#, nil),
            (#"{"type":"screen","screen":"{}"}"#, nil),
            (#"{"type":"screen","screen":[1,2]}"#, nil),
            (#"{"type":"interacted"}"#, nil),
            (#"{"type":"interacted","id":7}"#, nil),
            (#"{"type":"interacted","id":"c1","error":false}"#, "c1"),
        ] as [(String, String?)]
    )
    func malformedClientFrames(text: String, id: String?) {
        let error = decodingError(text)
        #expect(error?.code == .malformedFrame, "\(text)")
        #expect(error?.id == id, "\(text)")
        #expect(error?.message.isEmpty == false)
    }

    @Test(
        "malformed interact frames are refused",
        arguments: [
            #"{"type":"interact","bundleID":"a.b","kind":"tap"}"#,
            #"{"type":"interact","id":"c1","kind":"tap"}"#,
            #"{"type":"interact","id":"c1","bundleID":"a.b"}"#,
            #"{"type":"interact","id":"c1","bundleID":"a.b","kind":"action","text":3}"#,
        ]
    )
    func malformedInteract(text: String) {
        #expect(serverDecodingError(text)?.code == .malformedFrame, "\(text)")
    }
}
