import FuzzDriver
import HeraldCore

/// libFuzzer target: the payload parser (HeraldCore's `JSONParser`) on arbitrary bytes.
///
/// Oracle beyond "no crash": a parsed string escaped with `JSONString` and parsed again is the same string.
func fuzzJSONPayload(_ bytes: [UInt8]) {
    guard let value = try? JSONParser.parse(bytes) else { return }
    if case .string(let text) = value {
        var quoted = ""
        JSONString.append(text, to: &quoted)
        let again = try? JSONParser.parse(Array(quoted.utf8))
        precondition(again == value, "JSONString round trip changed \(text.debugDescription)")
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
