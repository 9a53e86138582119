import Foundation
import FuzzDriver
import HeraldCore

/// libFuzzer target: `HealthAnswer(bytes:)` (HeraldCore), how `herald health` reads what answered on the web port (the
/// container image's health check, docs/install.md): whatever listens there, not only Herald, may answer.
///
/// Oracles beyond "no crash": an answer that reads has a status of 100 to 599 and a body of at most 512 characters that
/// does not start with whitespace (it is trimmed, then cut, so it may end with some).
func fuzzHealthAnswer(_ bytes: [UInt8]) {
    guard let answer = HealthAnswer(bytes: bytes) else { return }
    precondition((100...599).contains(answer.status), "status \(answer.status) read")
    precondition(answer.body.count <= HealthAnswer.maximumBodyCharacters, "a body of \(answer.body.count) characters kept")
    if let first = answer.body.unicodeScalars.first {
        precondition(!CharacterSet.whitespacesAndNewlines.contains(first), "the body starts with whitespace")
    }
}

@main
enum Main {
    static func main() {
        FuzzDriver.main { start, count in
            fuzzHealthAnswer(start.map { Array(UnsafeBufferPointer(start: $0, count: count)) } ?? [])
            return 0
        }
    }
}
