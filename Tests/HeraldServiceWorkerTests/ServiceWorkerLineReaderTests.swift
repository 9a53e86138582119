import HeraldServiceWorker
import HeraldTestTiers
import Testing

@Suite("The scope's lines: splitting and the length limit", .tier(.unit))
struct ServiceWorkerLineReaderTests {
    @Test("lines come out whole however the bytes are cut")
    func split() {
        var reader = ServiceWorkerLineReader(maximumLineLength: 16)
        #expect(reader.consume(Array("ab".utf8)).isEmpty)
        #expect(reader.consume(Array("c\nde\n\nf".utf8)) == [.line(Array("abc".utf8)), .line(Array("de".utf8)), .line([])])
        #expect(reader.finish() == .line(Array("f".utf8)))
        #expect(reader.finish() == nil)
    }

    @Test("a line at the limit is kept; one byte more is dropped and reported with its length, and the next line is read")
    func limit() {
        var reader = ServiceWorkerLineReader(maximumLineLength: 4)
        #expect(reader.consume(Array("abcd\n".utf8)) == [.line(Array("abcd".utf8))])
        #expect(reader.consume(Array("abcde".utf8)).isEmpty)
        #expect(
            reader.consume(Array(repeating: UInt8(ascii: "x"), count: 1000) + Array("\nok\n".utf8)) == [
                .overlong(length: 1005), .line(Array("ok".utf8)),
            ]
        )
    }

    @Test("an overlong line cut by the end of the stream is still reported")
    func overlongAtEnd() {
        var reader = ServiceWorkerLineReader(maximumLineLength: 2)
        #expect(reader.consume(Array("abc".utf8)).isEmpty)
        #expect(reader.finish() == .overlong(length: 3))
    }
}
