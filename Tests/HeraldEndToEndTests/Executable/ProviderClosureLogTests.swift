import Foundation
import HeraldTestSupport
import HeraldTestTiers
import Testing

/// `herald serve` logs each provider connection it closes for a protocol error, at most 10 lines a second, and says how
/// many it left out (docs/provider-api.md, "What the log says").
@Suite("Interop: herald serve logs closed provider connections within a rate", .serialized, .tier(.process))
struct ProviderClosureLogTests {
    /// Opens `count` h2c connections that each send a PUSH_PROMISE (only servers push: GOAWAY PROTOCOL_ERROR), then
    /// waits for the server to close every one of them.
    static let client = """
        import socket, sys
        port, count = int(sys.argv[1]), int(sys.argv[2])
        bad = (b"PRI * HTTP/2.0\\r\\n\\r\\nSM\\r\\n\\r\\n" + bytes.fromhex("000000040000000000")
               + bytes.fromhex("000004050400000001") + bytes.fromhex("00000002"))
        sockets = []
        for _ in range(count):
            s = socket.create_connection(("127.0.0.1", port))
            s.sendall(bad)
            sockets.append(s)
        for s in sockets:
            s.settimeout(10)
            try:
                while s.recv(4096):
                    pass
            except OSError:
                pass
            s.close()
        """

    @Test("a burst of 100 protocol errors: at most 10 lines a second, and every closure is either a line or in a count")
    func burst() async throws {
        try await HeraldWorkspace.with { workspace in
            let server = try await HeraldServeProcess.start(in: workspace)
            let python = try await Interop.python()
            var sent = 0
            func close(_ count: Int) async throws {
                let result = try await ExternalProcess.run(
                    python,
                    ["-c", Self.client, "\(server.cleartextPort)", "\(count)"],
                    deadline: .seconds(60)
                )
                #expect(result.succeeded, "\(result)")
                sent += count
            }
            try await close(100)
            // One more closure at a time until every closure is accounted for: a count of lines left out is written
            // with the first line of a later second, so the last burst's count needs one more closure after it.
            var closed: [Substring] = []
            var unlogged: [Int] = []
            let deadline = ContinuousClock.now + .seconds(30)
            while true {
                let lines = server.process.stderrSoFar.split(separator: "\n")
                closed = lines.filter { $0.contains("provider connection closed: PROTOCOL_ERROR") }
                unlogged = lines.compactMap { line -> Int? in
                    guard let range = line.range(of: "gateway.unlogged_closures=") else { return nil }
                    return Int(line[range.upperBound...].prefix { $0.isNumber })
                }
                if closed.count + unlogged.reduce(0, +) >= sent || ContinuousClock.now > deadline { break }
                try await close(1)
            }
            #expect(!unlogged.isEmpty, "no line counted the closures left out:\n\(server.process.stderrSoFar)")
            // Nothing lost, nothing twice: the last line written came after every count it reports.
            #expect(closed.count + unlogged.reduce(0, +) == sent, "\(closed.count) lines + \(unlogged) left out, \(sent) closures")
            #expect(closed.count < 100)
            #expect(closed.allSatisfy { $0.contains("gateway.peer=127.0.0.1:") && $0.contains("gateway.error=PROTOCOL_ERROR") })
            // The rate, by the log's timestamps: the limiter reads the clock a moment before the line is stamped, and a
            // busy machine can stretch that moment past a second's end, so a second's lines may include some of the
            // second before's. At most 10 a second over the seconds the lines span, and never two seconds' worth in one.
            let perSecond = Dictionary(grouping: closed) { $0.prefix(24) }.values.map(\.count)
            #expect(closed.count <= 10 * (perSecond.count + 1), "\(perSecond)")
            #expect(perSecond.allSatisfy { $0 <= 20 }, "\(perSecond)")
            let metrics = try await server.metrics()
            #expect(metrics.contains(#"herald_provider_protocol_errors_total{code="PROTOCOL_ERROR"} \#(sent)"#), "\(metrics)")
            server.process.signal(SIGTERM)
            _ = try await server.process.wait(deadline: .seconds(30))
        }
    }
}
