import FuzzDriver
import HeraldDeviceLink

/// libFuzzer target: `ConsoleRelayMessage(text:)` (HeraldDeviceLink), what a cluster node reads from the messages the other
/// nodes' consoles send through the store (docs/cluster.md, "The console"), on the input as text.
///
/// Oracles beyond "no crash": a message that reads, written back with `text`, reads as an equal message and is written
/// the same again; nothing over the reader's size limit reads.
func fuzzConsoleRelay(_ bytes: [UInt8]) {
    let text = String(decoding: bytes, as: UTF8.self)
    guard let message = ConsoleRelayMessage(text: text) else { return }
    precondition(text.utf8.count <= ConsoleRelayMessage.maximumBytes, "a message of \(text.utf8.count) bytes was read")
    let written = message.text
    guard let again = ConsoleRelayMessage(text: written) else {
        preconditionFailure("\(message) read from \(text.debugDescription) is written as \(written.debugDescription), which does not read")
    }
    precondition(again == message, "\(message) read from \(text.debugDescription) reads back as \(again) from \(written.debugDescription)")
    precondition(again.text == written, "\(message) is written as \(written.debugDescription), then as \(again.text.debugDescription)")
}

@main
enum Main {
    static func main() {
        FuzzDriver.main { start, count in
            fuzzConsoleRelay(start.map { Array(UnsafeBufferPointer(start: $0, count: count)) } ?? [])
            return 0
        }
    }
}
