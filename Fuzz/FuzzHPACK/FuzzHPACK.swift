import FuzzDriver
import NIOCore

// The gateway's HTTP/2 types are internal: the fuzz build passes -enable-testing (Fuzz/run.sh), a debug build has it;
// a plain release build compiles this target to a program that says so.
#if HERALD_FUZZ || DEBUG
@testable import HeraldGateway

/// libFuzzer target: the gateway's HPACK decoder (`HPACKFieldDecoder`, `HPACKHuffman`) on arbitrary header blocks.
///
/// The input is decoded twice with one decoder, as two blocks of a connection, so the second sees the dynamic table
/// (and the size updates) the first left; every name and value is decoded to text, which runs the Huffman decoder.
func fuzzHPACK(_ bytes: [UInt8]) {
    var decoder = HPACKFieldDecoder(maximumTableSize: 4096)
    let block = ByteBuffer(bytes: bytes)
    for _ in 0..<2 {
        do {
            try decoder.decode(block) { field in
                _ = try? field.name.text()
                _ = try? field.value.decodedBytes()
            }
        } catch {
            return
        }
        precondition(decoder.tableSize <= decoder.maximumTableSize, "dynamic table above its size limit")
    }
}
#else
func fuzzHPACK(_ bytes: [UInt8]) {
    fatalError("built without -enable-testing: replay inputs with a debug build (swift run FuzzHPACK FILE)")
}
#endif

@main
enum Main {
    static func main() {
        FuzzDriver.main { start, count in
            fuzzHPACK(start.map { Array(UnsafeBufferPointer(start: $0, count: count)) } ?? [])
            return 0
        }
    }
}
