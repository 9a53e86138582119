import HeraldCore
import HeraldDeviceHost
import HeraldTestTiers
import Testing

/// Declarative web push's JSON as WebKit reads it (NotificationJSONParser.cpp), and where Herald is liberal.
@Suite("Declarative push messages: web_push 8030, title and navigate, the options, app_badge and mutable", .tier(.unit))
struct DeclarativePushMessageTests {
    static func parse(_ text: String) -> DeclarativePushMessage.Parsed {
        DeclarativePushMessage.parse(Array(text.utf8))
    }

    @Test("a full message: every option read")
    func full() throws {
        let parsed = Self.parse(
            #"""
            {"web_push":8030,"notification":{"title":"T","body":"B","navigate":"https://a.example/x","tag":"t1","lang":"fr","dir":"rtl",
            "icon":"https://a.example/i.png","silent":true,"data":{"k":1}},"app_badge":"12","mutable":true}
            """#
        )
        guard case .declarative(let message) = parsed else {
            Issue.record("\(parsed)")
            return
        }
        #expect(message.title == "T" && message.body == "B" && message.navigate == "https://a.example/x" && message.tag == "t1")
        #expect(message.lang == "fr" && message.dir == "rtl" && message.icon == "https://a.example/i.png" && message.silent == true)
        #expect(message.data == ["k": 1])
        #expect(message.appBadge == 12 && message.isMutable)
    }

    @Test("app_badge and mutable inside the notification, as WebKit reads them")
    func insideNotification() {
        let parsed = Self.parse(#"{"web_push":8030,"notification":{"title":"T","navigate":"https://a.example/","app_badge":0,"mutable":true}}"#)
        guard case .declarative(let message) = parsed else {
            Issue.record("\(parsed)")
            return
        }
        #expect(message.appBadge == 0 && message.isMutable)
    }

    @Test("not declarative: no web_push, another number, not JSON, not an object")
    func notDeclarative() {
        #expect(Self.parse(#"{"title":"Hello"}"#) == .notDeclarative)
        #expect(Self.parse(#"{"web_push":9001,"notification":{"title":"T","navigate":"https://a.example/"}}"#) == .notDeclarative)
        #expect(Self.parse("hello") == .notDeclarative)
        #expect(Self.parse("[8030]") == .notDeclarative)
    }

    @Test("marked but broken: no navigate, a relative one, an empty title, a bad dir or badge; each says why")
    func invalid() {
        let cases = [
            (#"{"web_push":8030,"notification":{"title":"T"}}"#, "navigate"),
            (#"{"web_push":8030,"notification":{"title":"T","navigate":"/orders/1"}}"#, "navigate"),
            (#"{"web_push":8030,"notification":{"title":"","navigate":"https://a.example/"}}"#, "title"),
            (#"{"web_push":8030,"notification":{"title":"T","navigate":"https://a.example/","dir":"up"}}"#, "dir"),
            (#"{"web_push":8030,"notification":{"title":"T","navigate":"https://a.example/"},"app_badge":-1}"#, "app_badge"),
            (#"{"web_push":8030,"notification":{"title":"T","navigate":"https://a.example/"},"mutable":"yes"}"#, "mutable"),
            (#"{"web_push":8030}"#, "notification"),
        ]
        for (text, member) in cases {
            guard case .invalid(let why) = Self.parse(text) else {
                Issue.record("\(text) is not refused")
                continue
            }
            #expect(why.contains(member), "\(why)")
        }
    }
}
