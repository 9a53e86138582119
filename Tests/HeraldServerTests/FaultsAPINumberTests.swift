import HeraldCore
import HeraldGateway
import HeraldTestSupport
import HeraldTestTiers
import HeraldTesting
import Testing

/// The faults API's JSON keeps integers exact and booleans apart (docs/faults.md), read back with HeraldCore's parser
/// (Foundation's `JSONSerialization` would itself round a seed above 2^53).
@Suite("Faults API: integers exact, booleans apart", .tier(.inProcess))
struct FaultsAPINumberTests {
    @Test("a seed of 2^63 − 1 comes back exactly from POST and GET /api/v1/faults")
    func largestSeed() async throws {
        try await withHeraldServer { server in
            let seed = Int64.max
            let added = try await ConsoleHTTP.post(server.inspectionURL, "faults", text: #"{"id": "big", "status": 500, "seed": \#(seed)}"#)
            #expect(added.status == 201, "\(String(decoding: added.body, as: UTF8.self))")
            #expect(try JSONParser.parse(added.body).objectValue?["seed"] == .int(Int(seed)))
            #expect(String(decoding: added.body, as: UTF8.self).contains(#""seed":9223372036854775807"#))
            let listed = try await ConsoleHTTP.get(server.inspectionURL, "faults")
            let rule = try JSONParser.parse(listed.body).objectValue?["faults"]?.arrayValue?.first?.objectValue
            #expect(rule?["seed"] == .int(Int(seed)))
            #expect(server.faults.entries.first?.rule.seed == UInt64(seed))
        }
    }

    @Test("true is a flag and 1 is not; 1 is a count and true is not")
    func booleansAreNotNumbers() async throws {
        try await withHeraldServer { server in
            for (text, message) in [
                (#"{"reset": 1}"#, "'reset' must be true"),
                (#"{"status": 500, "count": true}"#, "'count' must be an integer"),
            ] {
                let answer = try await ConsoleHTTP.post(server.inspectionURL, "faults", text: text)
                #expect(answer.status == 400, "\(text)")
                #expect(try JSONParser.parse(answer.body).objectValue?["error"] == .string(message), "\(text)")
            }
            let flag = try await ConsoleHTTP.post(server.inspectionURL, "faults", text: #"{"id": "r", "reset": true}"#)
            #expect(flag.status == 201)
            #expect(try JSONParser.parse(flag.body).objectValue?["reset"] == .bool(true))
            let count = try await ConsoleHTTP.post(server.inspectionURL, "faults", text: #"{"id": "c", "status": 500, "count": 1}"#)
            #expect(count.status == 201)
            #expect(try JSONParser.parse(count.body).objectValue?["count"] == .int(1))
        }
    }
}
