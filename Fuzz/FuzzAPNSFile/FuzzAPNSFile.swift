import FuzzDriver
import HeraldCore

/// libFuzzer target: the `.apns` file reader (`APNSFile`, HeraldCore), which parses the document and cuts the
/// `"Simulator Target Bundle"` member out of its bytes.
///
/// Oracle beyond "no crash": the payload left after the cut is still one JSON object, the parsed object less that key.
func fuzzAPNSFile(_ bytes: [UInt8]) {
    guard let file = try? APNSFile(bytes: bytes) else { return }
    let payload = try? JSONParser.parse(file.payload)
    precondition(payload?.objectValue == file.object, "the payload after the cut is not the object less the target bundle")
}

@main
enum Main {
    static func main() {
        FuzzDriver.main { start, count in
            fuzzAPNSFile(start.map { Array(UnsafeBufferPointer(start: $0, count: count)) } ?? [])
            return 0
        }
    }
}
