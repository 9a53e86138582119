// The sandbox's apns-unique-id per answer: drawn at random (before) against derived from the apns-id (after).
// Built by bench/ids/run.sh with HeraldCore's NotificationID sources in one module.
#if canImport(Glibc)
import Glibc
#endif

let rounds = CommandLine.arguments.count > 1 ? Int(CommandLine.arguments[1]) ?? 41 : 41
let iterations = CommandLine.arguments.count > 2 ? Int(CommandLine.arguments[2]) ?? 200_000 : 200_000
var generator = SystemRandomNumberGenerator()
let ids = (0..<1024).map { _ in NotificationID.random(using: &generator) }

func nanoseconds(_ body: () -> Int) -> (Double, Int) {
    let start = ContinuousClock.now
    let sink = body()
    let elapsed = ContinuousClock.now - start
    let (seconds, attoseconds) = elapsed.components
    return ((Double(seconds) * 1e9 + Double(attoseconds) / 1e9) / Double(iterations), sink)
}

var random: [Double] = []
var derived: [Double] = []
var sink = 0
for _ in 0..<rounds {
    let (a, s1) = nanoseconds {
        var total = 0
        for _ in 0..<iterations { total &+= NotificationID.random().text.utf8.count }
        return total
    }
    let (b, s2) = nanoseconds {
        var total = 0
        for index in 0..<iterations { total &+= ids[index & 1023].uniqueID.text.utf8.count }
        return total
    }
    random.append(a)
    derived.append(b)
    sink &+= s1 &+ s2
}
func median(_ values: [Double]) -> Double { values.sorted()[values.count / 2] }
print("| operation | median ns | best ns |")
print("|---|---:|---:|")
print("| random (before) | \(Int(median(random))) | \(Int(random.min()!)) |")
print("| derived (after) | \(Int(median(derived))) | \(Int(derived.min()!)) |")
print("after/before (medians): \(Double(Int(median(derived) / median(random) * 1000)) / 1000)  (checksum \(sink % 10))")
