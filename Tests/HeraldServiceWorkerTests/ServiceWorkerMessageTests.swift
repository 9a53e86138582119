import HeraldTestTiers
import Testing

@testable import HeraldServiceWorker

@Suite("The scope's lines: reading each kind, and what is not one", .tier(.unit))
struct ServiceWorkerMessageTests {
    private func read(_ text: String) throws -> ServiceWorkerMessage {
        try ServiceWorkerMessage.read(Array(text.utf8))
    }

    @Test("a shown notification with its options")
    func show() throws {
        let message = try read(
            #"{"event":3,"type":"show","notification":{"id":"n1","title":"Hi","options":{"body":"b","tag":"t","icon":"https://a.example/i.png","data":{"url":"/x"},"actions":[{"action":"open","title":"Open"}],"silent":true,"timestamp":5,"dir":"rtl"}}}"#
        )
        var options = WebNotification.Options()
        options.body = "b"
        options.tag = "t"
        options.icon = "https://a.example/i.png"
        options.data = .object(["url": .string("/x")])
        options.actions = [WebNotification.Action(action: "open", title: "Open")]
        options.silent = true
        options.timestamp = 5
        options.dir = "rtl"
        #expect(message == ServiceWorkerMessage(event: 3, content: .show(WebNotification(id: "n1", title: "Hi", options: options))))
    }

    @Test("what a notification is written as reads back the same")
    func notificationRoundTrip() throws {
        var options = WebNotification.Options()
        options.body = "ü \u{2028}"
        options.data = .array([.int(1), .null])
        options.actions = [WebNotification.Action(action: "a", title: "A", icon: "https://a.example/a.png")]
        options.renotify = true
        options.tag = "t"
        let notification = WebNotification(id: "n2", title: "\"quoted\"", options: options)
        #expect(try WebNotification(reading: notification.jsonBytes) == notification)
    }

    @Test("close, open-window, badge, console, error and done")
    func others() throws {
        #expect(try read(#"{"event":1,"type":"close","id":"n1"}"#).content == .close(id: "n1"))
        #expect(try read(#"{"event":1,"type":"open-window","url":"https://a.example/"}"#).content == .openWindow(url: "https://a.example/"))
        #expect(try read(#"{"event":1,"type":"badge","count":4}"#).content == .badge(.count(4)))
        #expect(try read(#"{"event":1,"type":"badge","flag":true}"#).content == .badge(.flag))
        #expect(try read(#"{"event":1,"type":"badge","clear":true}"#).content == .badge(.cleared))
        #expect(
            try read(#"{"event":1,"type":"console","level":"warn","text":"w"}"#).content
                == .console(ServiceWorkerConsoleLine(level: "warn", text: "w"))
        )
        #expect(
            try read(#"{"event":1,"type":"error","kind":"rejected","message":"TypeError: x"}"#).content
                == .error(ServiceWorkerError(.rejected, "TypeError: x"))
        )
        #expect(
            try read(#"{"event":1,"type":"error","kind":"new-kind","message":"m"}"#).content
                == .error(ServiceWorkerError(.init(rawValue: "new-kind"), "m"))
        )
        #expect(try read(#"{"event":1,"type":"done","handled":2,"milliseconds":1.5}"#).content == .done(listeners: 2, milliseconds: 1.5))
    }

    @Test(
        "a line that is not one of the protocol's says why in one line",
        arguments: [
            ("not json", "not valid JSON"),
            ("[1]", "not a JSON object"),
            (#"{"event":1}"#, "\"type\" is required"),
            (#"{"event":1,"type":"teleport"}"#, "unknown line type \"teleport\""),
            (#"{"event":"one","type":"close","id":"n"}"#, "\"event\" must be an integer"),
            (#"{"event":1,"type":"show","notification":{"title":"t"}}"#, "\"id\" is required"),
            (#"{"event":1,"type":"show","notification":{"id":"n","title":"t","options":{"actions":[1]}}}"#, "\"actions\" must hold objects"),
            (#"{"event":1,"type":"badge","count":0}"#, "a badge line needs"),
            (#"{"event":1,"type":"badge","count":-3}"#, "a badge line needs"),
        ]
    )
    func unreadable(line: String, reason: String) {
        #expect {
            try read(line)
        } throws: { error in
            let message = (error as? ServiceWorkerProtocolError)?.message ?? ""
            return message.contains(reason) && !message.contains("\n")
        }
    }

    @Test("seeded random mutations of valid lines: each is read, or refused in one line, never a crash")
    func mutations() {
        let lines = [
            #"{"event":3,"type":"show","notification":{"id":"n1","title":"Hi","options":{"body":"b","tag":"t","actions":[{"action":"a","title":"A"}],"silent":null,"timestamp":5}}}"#,
            #"{"event":1,"type":"badge","count":4}"#,
            #"{"event":1,"type":"done","handled":2,"milliseconds":1.5}"#,
        ].map { Array($0.utf8) }
        var generator = SeededGenerator(seed: 39)
        var read = 0
        var refused = 0
        for round in 0..<3_000 {
            var line = lines[round % lines.count]
            for _ in 0...Int.random(in: 0..<4, using: &generator) {
                let index = Int.random(in: 0..<line.count, using: &generator)
                switch Int.random(in: 0..<3, using: &generator) {
                case 0: line[index] = UInt8.random(in: 0...255, using: &generator)
                case 1: line.remove(at: index)
                default: line.insert(line[index], at: index)
                }
                if line.isEmpty { break }
            }
            do {
                _ = try ServiceWorkerMessage.read(line)
                read += 1
            } catch {
                #expect(!error.message.isEmpty && !error.message.contains("\n"))
                refused += 1
            }
        }
        #expect(read + refused == 3_000)
        #expect(read > 0 && refused > 0)
    }
}

/// SplitMix64: the same numbers on every run, so a failure is repeatable.
private struct SeededGenerator: RandomNumberGenerator {
    private var state: UInt64

    init(seed: UInt64) { state = seed }

    mutating func next() -> UInt64 {
        state &+= 0x9E37_79B9_7F4A_7C15
        var value = state
        value = (value ^ (value >> 30)) &* 0xBF58_476D_1CE4_E5B9
        value = (value ^ (value >> 27)) &* 0x94D0_49BB_1331_11EB
        return value ^ (value >> 31)
    }
}
