import Foundation
import HeraldCore
import HeraldDeviceLink
import HeraldTestTiers
import Testing

@Suite("Device link: the console's frames (screen, interact, interacted)", .tier(.inProcess))
struct ConsoleMessageTests {
    /// A `DeviceSnapshot` with one member of every kind, as a device's `JSONEncoder` writes it (dates in seconds since 1970).
    static let fullScreen = """
        {"name":"Kitchen iPad","capturedAt":1700000000.25,"apps":[{"bundleID":"com.example.app","name":"Example",\
        "environment":"sandbox","deviceToken":"5f1c","state":"foreground","authorization":"authorized",\
        "categories":[{"identifier":"MSG","actions":[{"identifier":"REPLY","title":"Reply","options":[],"textInputButtonTitle":"Send"}],\
        "options":[]}],"center":{"bundleIdentifier":"com.example.app","capturedAt":1700000000.25,"appState":"foreground",\
        "authorizationStatus":2,"badge":1,"threads":[{"threadIdentifier":"","notifications":[{"identifier":"n1","date":1700000000,\
        "title":"","subtitle":"","body":"Hi","categoryIdentifier":"MSG","threadIdentifier":"","interruptionLevel":"active",\
        "relevanceScore":0,"isRemote":true,"presentedAsBanner":true,"attachments":[{"identifier":"img","type":"public.png",\
        "fileName":"a.png","size":12,"thumbnailHidden":false}],"actions":[{"identifier":"REPLY","title":"Reply","options":0}]}]}],\
        "pending":[{"identifier":"p1","trigger":"timeInterval","nextFireDate":1700000060,"title":"Later"}],\
        "expandedContentExtension":{"extensionName":"Ext","notificationIdentifier":"n1","headerTitle":"Example","lines":["Hi"],\
        "size":[320,200],"showsDefaultContent":true,"defaultContent":["Hi"],"userInteractionEnabled":false,\
        "mediaButton":{"type":1,"frame":[0,0,44,44],"tint":"#fff","isPlaying":false},"actions":["REPLY"]}},\
        "apnsIDs":{"n1":"8F0E2C2A-1B4E-4D2A-9C53-2F1A0F6B7E01"},"activities":[{"id":"a1","typeName":"Delivery","attributes":"{}",\
        "contentState":"{}","state":"active","relevanceScore":0,"staleDate":null}],"activityViews":{"a1":{"lines":["5 min"]}}}]}
        """

    @Test("a screen with every member of a DeviceSnapshot reads, byte for byte")
    func fullScreenReads() throws {
        let message = try DeviceLinkClientMessage(frame: Array(#"{"type":"screen","screen":\#(Self.fullScreen)}"#.utf8))
        #expect(message == .screen(json: Array(Self.fullScreen.utf8)))
    }

    @Test(
        "a screen that would not decode as a DeviceSnapshot is malformed-frame, naming the first wrong member",
        arguments: [
            (#""threads":[{"threadIdentifier""#, #""threadz":[{"threadIdentifier""#, "screen.apps[0].center.threads is required"),
            (#""state":"foreground""#, #""state":"awake""#, "screen.apps[0].state must be one of notRunning"),
            (#""n1":"8F0E"#, #""n1":"8G0E"#, "screen.apps[0].apnsIDs.n1 must be a UUID"),
            (#""isRemote":true"#, #""isRemote":"yes""#, "screen.apps[0].center.threads[0].notifications[0].isRemote must be true or false"),
            (#""size":12"#, #""size":12.5"#, "notifications[0].attachments[0].size must be an integer"),
            (#""state":"active""#, #""state":"gone""#, "screen.apps[0].activities[0].state must be one of active"),
            (#""lines":["5 min"]"#, #""lines":"5 min""#, "screen.apps[0].activityViews.a1.lines must be an array"),
            (#""badge":1,"#, #""badge":null,"#, nil),
        ] as [(String, String, String?)]
    )
    func wrongScreen(original: String, replacement: String, problem: String?) throws {
        #expect(Self.fullScreen.contains(original))
        let screen = Self.fullScreen.replacingOccurrences(of: original, with: replacement)
        let error = decodingError(#"{"type":"screen","screen":\#(screen)}"#)
        guard let problem else {
            #expect(error == nil, "an optional member may be null")
            return
        }
        #expect(error?.code == .malformedFrame)
        #expect(error?.message.contains(problem) == true, "\(error?.message ?? "no error")")
    }

    @Test("screen and interacted survive a round trip; the screen's JSON is kept byte for byte")
    func clientRoundTrip() throws {
        let screen = #"{ "name" : "Phone \"1\"", "capturedAt": 1700000000.25, "apps": [] }"#
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
            (#"{"type":"screen","screen":{"name":"phone"}}"#, nil),
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
