import FuzzDriver
import HeraldCore
import HeraldDeviceLink

/// libFuzzer target: the device link's frame readers (`DeviceLinkClientMessage(frame:)`, `DeviceLinkServerMessage(frame:)`,
/// `JSONObjectReader`) on a frame's bytes, and the `WebSocketMessageAssembler` on the same bytes cut into WebSocket frames
/// (`WebSocketFragments.swift`).
///
/// Oracles beyond "no crash": a frame that reads, written back with `frame()`, reads as an equal message and writes the
/// same bytes again; the error a refused device frame throws, sent back as an `error` frame, reads as the same error;
/// the raw bytes the readers take for `payload`, `screen` and `detail` parse to the member's value.
func fuzzDeviceLinkFrames(_ bytes: [UInt8]) {
    checkFrameReader(bytes)
    checkClientFrame(bytes)
    checkServerFrame(bytes)
    checkAssembler(bytes)
}

private func checkFrameReader(_ bytes: [UInt8]) {
    guard let reader = try? JSONObjectReader(bytes) else { return }
    let context = DeviceLinkError(code: .malformedFrame, message: "fuzz")
    // The members the readers take as raw bytes; the last of a name is the one that counts (a lookup sees the last).
    for name in ["payload", "screen", "detail"] where reader.object[name]?.objectValue != nil {
        guard let raw = try? reader.optionalRawObject(name, context: context) else {
            preconditionFailure("the object member \(name.debugDescription) of \(text(bytes)) has no raw bytes")
        }
        precondition((try? JSONParser.parse(raw)) == reader.object[name], "the raw bytes of \(name.debugDescription) are not its value")
    }
}

private func checkClientFrame(_ bytes: [UInt8]) {
    let message: DeviceLinkClientMessage
    do {
        message = try DeviceLinkClientMessage(frame: bytes)
    } catch {
        // What the server sends back: the error echoes the frame's `id` and `apnsID`, so it must survive the trip.
        checkServerRoundTrip(.error(error), read: nil)
        return
    }
    let written = message.frame()
    let again: DeviceLinkClientMessage
    do {
        again = try DeviceLinkClientMessage(frame: written)
    } catch {
        preconditionFailure("\(message) read from \(text(bytes)) is written as \(text(written)), which does not read: \(error)")
    }
    precondition(again == message, "\(message) read from \(text(bytes)) reads back as \(again) from \(text(written))")
    precondition(again.frame() == written, "\(message) is written as \(text(written)), then as \(text(again.frame()))")
}

private func checkServerFrame(_ bytes: [UInt8]) {
    guard let message = try? DeviceLinkServerMessage(frame: bytes) else { return }
    checkServerRoundTrip(message, read: bytes)
}

private func checkServerRoundTrip(_ message: DeviceLinkServerMessage, read source: [UInt8]?) {
    let written = message.frame()
    let origin = source.map { " read from \(text($0))" } ?? ""
    let again: DeviceLinkServerMessage
    do {
        again = try DeviceLinkServerMessage(frame: written)
    } catch {
        preconditionFailure("\(message)\(origin) is written as \(text(written)), which does not read: \(error)")
    }
    precondition(again == message, "\(message)\(origin) reads back as \(again) from \(text(written))")
    precondition(again.frame() == written, "\(message) is written as \(text(written)), then as \(text(again.frame()))")
}

/// The bytes as text for a trap's message (invalid UTF-8 repaired).
func text(_ bytes: some Collection<UInt8>) -> String {
    String(decoding: bytes, as: UTF8.self).debugDescription
}

@main
enum Main {
    static func main() {
        FuzzDriver.main { start, count in
            fuzzDeviceLinkFrames(start.map { Array(UnsafeBufferPointer(start: $0, count: count)) } ?? [])
            return 0
        }
    }
}
