import HeraldCore
import HeraldGateway
import HeraldTestTiers
import Testing

/// Numbers in a rule's JSON are read exactly: integers stay integers (a `seed` above 2^53 keeps its last digits) and
/// `true` is not `1` (docs/faults.md: a flag is `true`, a count or a time an integer).
@Suite("Fault rules: integers exact, booleans apart", .tier(.unit))
struct FaultRuleNumberTests {
    private func rule(_ json: String) throws -> FaultRule { try FaultRule(json: Array(json.utf8)) }

    private func refusal(_ json: String) -> String? {
        do {
            _ = try rule(json)
            return nil
        } catch {
            return (error as? FaultRuleError)?.message ?? "\(error)"
        }
    }

    @Test("the largest seed, 2^63 − 1, and one just above 2^53 read and write back exactly")
    func largeSeeds() throws {
        for seed: Int64 in [.max, (1 << 53) + 1] {
            let read = try rule(#"{"id": "s", "status": 500, "seed": \#(seed)}"#)
            #expect(read.seed == UInt64(seed))
            #expect(read.jsonObject["seed"] == .int(Int(seed)))
            let written = String(decoding: read.jsonObject.jsonBytes, as: UTF8.self)
            #expect(written.contains(#""seed":\#(seed)"#), "\(written)")
            #expect(try FaultRule(json: read.jsonObject.jsonBytes) == read)
        }
        #expect(refusal(#"{"status": 500, "seed": 9223372036854775808}"#) == "'seed' must be an integer")
        #expect(refusal(#"{"status": 500, "seed": -1}"#) == "'seed' must be 0 or more")
    }

    @Test("a flag takes true, not 1; an integer takes 1, not true")
    func booleansAreNotNumbers() throws {
        #expect(try rule(#"{"reset": true}"#).effect.connection == .reset)
        #expect(refusal(#"{"reset": 1}"#) == "'reset' must be true")
        #expect(refusal(#"{"match": {"topic": "t"}, "deviceOffline": 1, "forMs": 10}"#) == "'deviceOffline' must be true")
        #expect(try rule(#"{"status": 500, "count": 1}"#).count == 1)
        #expect(refusal(#"{"status": 500, "count": true}"#) == "'count' must be an integer")
        #expect(refusal(#"{"status": true}"#) == "'status' must be an integer")
        #expect(refusal(#"{"status": 500, "probability": true}"#) == "'probability' must be a number")
        // A whole number written with a fraction or an exponent is still that integer.
        #expect(try rule(#"{"status": 500, "count": 2.0}"#).count == 2)
        #expect(try rule(#"{"delayMs": 1e3}"#).effect.delayMilliseconds == 1000...1000)
    }
}
