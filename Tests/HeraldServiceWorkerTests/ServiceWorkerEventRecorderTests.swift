import HeraldTestTiers
import Testing

@testable import HeraldServiceWorker

@Suite("One event's outcome from the scope's lines, with the action limit", .tier(.unit))
struct ServiceWorkerEventRecorderTests {
    private func line(_ text: String) -> ServiceWorkerLineReader.Output { .line(Array(text.utf8)) }

    @Test("actions are kept in order until done; lines after done, and of other events, are not")
    func order() {
        var recorder = ServiceWorkerEventRecorder(event: 2, name: "push", maximumActions: 10)
        recorder.record(line(#"{"event":2,"type":"console","level":"log","text":"a"}"#), maximumLineLength: 100)
        recorder.record(line(#"{"event":1,"type":"open-window","url":"https://late.example/"}"#), maximumLineLength: 100)
        recorder.record(line(#"{"event":2,"type":"badge","count":1}"#), maximumLineLength: 100)
        #expect(!recorder.isDone)
        recorder.record(line(#"{"event":2,"type":"done","handled":1,"milliseconds":4}"#), maximumLineLength: 100)
        recorder.record(line(#"{"event":2,"type":"badge","count":9}"#), maximumLineLength: 100)
        #expect(recorder.isDone)
        #expect(recorder.outcome.console == [ServiceWorkerConsoleLine(level: "log", text: "a")])
        #expect(recorder.outcome.openedWindows.isEmpty)
        #expect(recorder.outcome.badgeChanges == [.count(1)])
        #expect(recorder.outcome.listeners == 1)
        #expect(recorder.outcome.workerDuration == .milliseconds(4))
        #expect(recorder.outcome.error == nil)
    }

    @Test("past the action limit: one error, the rest ignored, done still read")
    func actionLimit() {
        var recorder = ServiceWorkerEventRecorder(event: 1, name: "push", maximumActions: 3)
        for index in 0..<10 {
            recorder.record(line(#"{"event":1,"type":"console","level":"log","text":"\#(index)"}"#), maximumLineLength: 100)
        }
        recorder.record(line(#"{"event":1,"type":"done","handled":1,"milliseconds":1}"#), maximumLineLength: 100)
        #expect(recorder.outcome.console.map(\.text) == ["0", "1", "2"])
        #expect(recorder.outcome.errors == [ServiceWorkerError(.protocol, "more than 3 actions in one event; the rest are ignored")])
        #expect(recorder.isDone)
    }

    @Test("an overlong line is an error of the event; an unreadable one is reported and skipped")
    func badLines() {
        var recorder = ServiceWorkerEventRecorder(event: 1, name: "push", maximumActions: 3)
        recorder.record(.overlong(length: 70_000), maximumLineLength: 65_536)
        recorder.record(line("garbage"), maximumLineLength: 65_536)
        #expect(recorder.outcome.errors == [ServiceWorkerError(.protocol, "a line of 70000 bytes is over the limit of 65536")])
        #expect(recorder.outcome.unreadableLines.count == 1)
        #expect(recorder.outcome.unreadableLines.first?.hasSuffix(": garbage") == true)
        #expect(!recorder.isDone)
    }

    @Test("an end without done keeps what came and adds the reason, once")
    func endWithoutDone() {
        var recorder = ServiceWorkerEventRecorder(event: 1, name: "push", maximumActions: 3)
        recorder.record(line(#"{"event":1,"type":"console","level":"log","text":"a"}"#), maximumLineLength: 100)
        recorder.end(with: ServiceWorkerError(.exited, "gone"))
        recorder.end(with: ServiceWorkerError(.timedOut, "late"))
        #expect(recorder.isDone)
        #expect(recorder.outcome.console.count == 1)
        #expect(recorder.outcome.errors == [ServiceWorkerError(.exited, "gone")])
    }
}
