import FuzzDriver
import NIOCore

// The gateway's HTTP/2 types are internal: the fuzz build passes -enable-testing (Fuzz/run.sh), a debug build has it;
// a plain release build compiles this target to a program that says so.
#if HERALD_FUZZ || DEBUG
@testable import HeraldGateway

/// libFuzzer target: the gateway's HTTP/2 frame reader (`HTTP2FrameReader`), driven through its entry points only:
/// append bytes, take frames until it wants more or throws; each request header block then goes through the HPACK
/// decoder and the message rules (`HTTP2HeaderListCheck`: pseudo-headers, `te`, `content-length`) as the connection
/// takes it.
///
/// The input is what a client sends from its first byte (the preface included). It arrives in two reads, split in the
/// middle, so frames that straddle reads are covered too.
func fuzzHTTP2Frames(_ bytes: [UInt8]) {
    var reader = HTTP2FrameReader()
    var decoder = HPACKFieldDecoder(maximumTableSize: 4096)
    let middle = bytes.count / 2
    for part in [bytes[..<middle], bytes[middle...]] {
        reader.append(ByteBuffer(bytes: part))
        do {
            while let frame = try reader.next() {
                guard case .headers(_, _, let block) = frame else { continue }
                var check = HTTP2HeaderListCheck(maximumListSize: 8000, isTrailers: false)
                try decoder.decode(block) { check.add($0) }
                _ = (check.outcome, check.contentLength)
            }
        } catch {
            return
        }
    }
}
#else
func fuzzHTTP2Frames(_ bytes: [UInt8]) {
    fatalError("built without -enable-testing: replay inputs with a debug build (swift run FuzzHTTP2Frames FILE)")
}
#endif

@main
enum Main {
    static func main() {
        FuzzDriver.main { start, count in
            fuzzHTTP2Frames(start.map { Array(UnsafeBufferPointer(start: $0, count: count)) } ?? [])
            return 0
        }
    }
}
