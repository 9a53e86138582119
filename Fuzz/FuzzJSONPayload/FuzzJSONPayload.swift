import FuzzDriver
import HeraldCore

/// libFuzzer target: HeraldCore's JSON layer on arbitrary bytes: the payload parser (`JSONParser`), the escaper
/// (`JSONString`) and the member scanner (`JSONMemberScanner`).
///
/// Oracles beyond "no crash": a parsed string escaped with `JSONString` (as text and as bytes) and parsed again is the
/// same string; on a parsed object, the scanner finds the parser's members, each value's bytes parsing to the parser's
/// value; on any bytes, the scanner's ranges stay inside the input.
func fuzzJSONPayload(_ bytes: [UInt8]) {
    for member in JSONMemberScanner(bytes) {
        precondition(member.name.upperBound <= member.value.lowerBound && member.value.upperBound <= bytes.count, "a member out of bounds")
    }
    guard let value = try? JSONParser.parse(bytes) else { return }
    switch value {
    case .string(let text):
        var quoted = ""
        JSONString.append(text, to: &quoted)
        var quotedBytes: [UInt8] = []
        JSONString.append(text, to: &quotedBytes)
        precondition(quotedBytes == Array(quoted.utf8), "JSONString's text and bytes differ for \(text.debugDescription)")
        let again = try? JSONParser.parse(quotedBytes)
        precondition(again == value, "JSONString round trip changed \(text.debugDescription)")
    case .object(let object):
        let members = Array(JSONMemberScanner(bytes))
        precondition(members.map { JSONMemberScanner.name(of: $0, in: bytes) } == object.memberNames, "the scanner's names differ")
        for (member, expected) in zip(members, object.members) {
            precondition((try? JSONParser.parse(bytes[member.value])) == expected.value, "the scanner's value of \(expected.key) differs")
        }
    default:
        break
    }
}

@main
enum Main {
    static func main() {
        FuzzDriver.main { start, count in
            fuzzJSONPayload(start.map { Array(UnsafeBufferPointer(start: $0, count: count)) } ?? [])
            return 0
        }
    }
}
