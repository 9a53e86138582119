// The JSON layer's hot paths, timed: what the gateway does to every payload (parse it), and what the device link
// does to every notification frame (write it, then read it and take the payload's bytes, and that last step alone).
//
// Built by bench/json/run.sh from the sources of one revision (HeraldCore/JSON; before the frame reader moved there,
// HeraldDeviceLink/JSON and the device-link error types too) into one module, so the same program measures the code
// before and after a change.
// Prints one line per operation: `<operation> <nanoseconds per operation>`.

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

let payload = Array(
    (#"{"aps":{"alert":{"title":"Order 4711 shipped","body":"Your parcel is on its way: \"Blue Lamp\", 2 items.","#
        + #""loc-args":["4711",2]},"badge":3,"sound":"default","mutable-content":1,"thread-id":"orders","#
        + #""relevance-score":0.75},"orderID":4711,"carrier":{"name":"Parcel Co","tracking":"PC123456789DE","#
        + #""eta":1764072000},"items":[{"sku":"L-100","qty":1,"price":49.9},{"sku":"B-7","qty":1,"price":5}]}"#).utf8
)

func writeFrame() -> [UInt8] {
    var writer = JSONTextWriter(capacity: 320 + payload.count)
    writer.beginObject()
    writer.member("type", "notification")
    writer.member("apnsID", "6C3A1B8E-3F0A-4C7B-9E5D-2A1F0B9C8D7E")
    writer.member("token", "4f1c2b9d8e7a6f5c4b3a29180f1e2d3c4b5a69788796a5b4c3d2e1f00f1e2d3c")
    writer.member("bundleID", "com.example.orders")
    writer.member("topic", "com.example.orders")
    writer.member("pushType", "alert")
    writer.member("priority", 10)
    writer.member("expiration", Int64?.none)
    writer.member("collapseID", "order-4711")
    writer.member("acceptedAt", Int64(1_764_072_000_123))
    writer.member("attempt", 1)
    writer.key("payload")
    writer.rawValue(payload)
    writer.endObject()
    return writer.bytes
}

#if HERALD_JSON_OBJECT_READER
typealias FrameReader = JSONObjectReader
/// The caller's error for a mistyped member, as a device-link error is.
struct BenchError: JSONMemberError {
    func with(message: String) -> BenchError { self }
}
let context = BenchError()
#else
typealias FrameReader = JSONFrameReader
let context = DeviceLinkError(code: .malformedFrame, message: "")
#endif

let frame = writeFrame()
let reader = try! FrameReader(frame)

func now() -> UInt64 {
    var time = timespec()
    clock_gettime(CLOCK_MONOTONIC, &time)
    return UInt64(time.tv_sec) * 1_000_000_000 + UInt64(time.tv_nsec)
}

/// Nanoseconds per call of `body`, over `iterations` calls after a warm-up.
func measure(_ iterations: Int, _ body: () -> Int) -> Double {
    var sink = 0
    for _ in 0..<(iterations / 10) { sink &+= body() }
    let start = now()
    for _ in 0..<iterations { sink &+= body() }
    let elapsed = now() - start
    if sink == 42 { print("") }  // keeps the work observable
    return Double(elapsed) / Double(iterations)
}

let iterations = CommandLine.arguments.count > 1 ? Int(CommandLine.arguments[1]) ?? 200_000 : 200_000

let operations: [(String, () -> Int)] = [
    ("parse-payload", { (try? JSONParser.parse(payload))?.objectValue == nil ? 0 : 1 }),
    ("write-frame", { writeFrame().count }),
    ("read-frame-payload", { (try? FrameReader(frame).rawObject("payload", context: context))?.count ?? 0 }),
    // The member lookup alone, on a frame already parsed: where the payload's bytes are in the frame.
    ("find-frame-payload", { (try? reader.rawObject("payload", context: context))?.count ?? 0 }),
]
for (name, body) in operations {
    print(name, (measure(iterations, body) * 10).rounded() / 10)
}
