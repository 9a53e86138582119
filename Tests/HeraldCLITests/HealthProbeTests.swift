import HeraldTestTiers
import Testing

@testable import HeraldCLI

/// `herald health`'s reading of an HTTP/1.1 answer (the container image's health check, docs/install.md).
@Suite("herald health reads the web port's answer", .tier(.unit))
struct HealthProbeTests {
    @Test("A 200 and a 503 with their bodies; headers skipped")
    func statusAndBody() throws {
        let ready = Array("HTTP/1.1 200 OK\r\ncontent-type: application/json\r\ncontent-length: 18\r\n\r\n{\"status\":\"ready\"}".utf8)
        #expect(try HealthProbe.parse(ready, from: "p") == HealthProbe.Answer(status: 200, body: #"{"status":"ready"}"#))
        let waiting = Array("HTTP/1.1 503 Service Unavailable\r\n\r\n{\"status\":\"not-ready\",\"waiting\":[\"store\"]}\n".utf8)
        #expect(try HealthProbe.parse(waiting, from: "p") == HealthProbe.Answer(status: 503, body: #"{"status":"not-ready","waiting":["store"]}"#))
    }

    @Test("An answer that is not HTTP is one line naming the peer")
    func notHTTP() {
        for bytes in [Array("SSH-2.0-OpenSSH_9.2\r\n".utf8), [], Array("HTTP/1.1 abc\r\n\r\n".utf8), Array("HTTP/1.1 999 x\r\n\r\n".utf8)] {
            #expect(throws: CLIFailure("127.0.0.1:22 did not answer HTTP (is it herald serve's web port?)")) {
                try HealthProbe.parse(bytes, from: "127.0.0.1:22")
            }
        }
    }

    @Test("A long body is cut to 512 characters")
    func longBody() throws {
        let answer = try HealthProbe.parse(Array(("HTTP/1.1 500 x\r\n\r\n" + String(repeating: "a", count: 2000)).utf8), from: "p")
        #expect(answer.status == 500 && answer.body.count == 512)
    }
}
