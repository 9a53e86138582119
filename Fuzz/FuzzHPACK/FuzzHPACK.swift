import FuzzDriver
import HeraldHTTP2
import NIOCore

/// libFuzzer target: the provider port's HPACK decoder (`HPACKFieldDecoder`, `HPACKHuffman`; HeraldHTTP2) on arbitrary
/// header blocks.
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

@main
enum Main {
    static func main() {
        FuzzDriver.main { start, count in
            fuzzHPACK(start.map { Array(UnsafeBufferPointer(start: $0, count: count)) } ?? [])
            return 0
        }
    }
}
