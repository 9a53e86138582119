import FuzzDriver
import HeraldHTTP2
import NIOCore

/// libFuzzer target: the provider port's HTTP/2 frame reader (`HTTP2FrameReader`, HeraldHTTP2), driven through its
/// entry points only: append bytes, take frames until it wants more or throws; each request header block then goes
/// through the HPACK decoder and the message rules (`HTTP2HeaderListCheck`: pseudo-headers, `te`, `content-length`) as
/// the connection takes it.
///
/// The input is what a client sends from its first byte (the preface included). It arrives in two reads, split in the
/// middle, so frames that straddle reads are covered too.
func fuzzHTTP2Frames(_ bytes: [UInt8]) {
    // The gateway's default limits (GatewayConfiguration.Limits).
    var reader = HTTP2FrameReader(maximumHeaderBlockSize: 32_000, maximumContinuationFrames: 64)
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

@main
enum Main {
    static func main() {
        FuzzDriver.main { start, count in
            fuzzHTTP2Frames(start.map { Array(UnsafeBufferPointer(start: $0, count: count)) } ?? [])
            return 0
        }
    }
}
