import HeraldHTTP2
import HeraldTestTiers
import NIOCore
import Testing

@testable import HeraldGateway

/// RFC 9113 §8 (expressing HTTP semantics) on the provider port: malformed requests are stream errors.
@Suite("RFC 9113 §8: HTTP semantics", .tier(.unit))
struct RFC9113Section8Tests {
    /// How a valid request is made malformed.
    enum Fault: String, CaseIterable, CustomTestStringConvertible {
        case upperCaseName, pseudoAfterRegular, connectionHeader, transferEncoding, teOtherThanTrailers, unknownPseudo
        case responsePseudo, duplicatePath, missingScheme, emptyPath
        case contentLengthNotANumber, contentLengthsDiffering, contentLengthWithoutContent

        var testDescription: String { rawValue }

        func apply(to fields: [(String, String)]) -> [(String, String)] {
            switch self {
            // §8.2.1: field names are lower case; Herald used to match them without case.
            case .upperCaseName: fields.map { $0.0 == "apns-topic" ? ("Apns-Topic", $0.1) : $0 }
            // §8.3: pseudo-headers come first.
            case .pseudoAfterRegular: fields.filter { $0.0 != ":authority" } + [(":authority", "localhost")]
            // §8.2.2: connection-specific fields.
            case .connectionHeader: fields + [("connection", "keep-alive")]
            case .transferEncoding: fields + [("transfer-encoding", "chunked")]
            case .teOtherThanTrailers: fields + [("te", "gzip")]
            // §8.3: only the defined pseudo-headers, and only request ones.
            case .unknownPseudo: [(":protocol", "websocket")] + fields
            case .responsePseudo: [(":status", "200")] + fields
            // §8.3.1: exactly one :method, :scheme and :path.
            case .duplicatePath: [(":path", "/3/device/abc")] + fields
            case .missingScheme: fields.filter { $0.0 != ":scheme" }
            // §8.3.1: `:path` must not be empty for an "https" URI (Herald answered 404 BadPath).
            case .emptyPath: fields.map { $0.0 == ":path" ? (":path", "") : $0 }
            // §8.1.1 with RFC 9110 §8.6: content-length is one decimal number, which the content must match; the
            // request ends with its headers, so it has no content.
            case .contentLengthNotANumber: fields + [("content-length", "4x")]
            case .contentLengthsDiffering: fields + [("content-length", "0"), ("content-length", "1")]
            case .contentLengthWithoutContent: fields + [("content-length", "5")]
            }
        }
    }

    @Test("§8.1.1, §8.2, §8.3: a malformed request is a stream error PROTOCOL_ERROR and is not answered", arguments: Fault.allCases)
    func malformedRequest(fault: Fault) async throws {
        var connection = try await ConformanceConnection.open()
        let block = RawHeaderBlock(fault.apply(to: connection.request())).bytes
        #expect(try connection.send(headersFrame(streamID: 1, block)) == [ConformanceConnection.reset(1, .protocolError)])
        #expect(connection.isOpen)
        #expect(connection.handler.streams.isEmpty && connection.handler.inFlightCommits == 0)
        #expect(connection.protocolErrors("PROTOCOL_ERROR") == "1")
        await connection.stop()
    }

    @Test("§8.2.2: te: trailers is allowed")
    func teTrailersAllowed() async throws {
        var connection = try await ConformanceConnection.open()
        let block = RawHeaderBlock(connection.request(path: "/3/device/abc") + [("te", "trailers")]).bytes
        #expect(try connection.send(headersFrame(streamID: 1, block)).status == "400")
        await connection.stop()
    }

    @Test("§8.1: a second HEADERS without END_STREAM is malformed: stream error PROTOCOL_ERROR, not ignored trailers")
    func secondHeadersWithoutEndStream() async throws {
        var connection = try await ConformanceConnection.open()
        let request = RawHeaderBlock(connection.request(path: "/3/device/abc")).bytes
        #expect(try connection.send(headersFrame(streamID: 1, request, endStream: false)).isEmpty)
        let trailers = RawHeaderBlock([("x-trailer", "1")]).bytes
        #expect(try connection.send(headersFrame(streamID: 1, trailers, endStream: false)) == [ConformanceConnection.reset(1, .protocolError)])
        #expect(connection.handler.streams.isEmpty)
        await connection.stop()
    }

    @Test("§8.1: trailers ending the stream complete the request; trailers with a pseudo-header are malformed")
    func trailers() async throws {
        var connection = try await ConformanceConnection.open()
        let request = RawHeaderBlock(connection.request(path: "/3/device/abc")).bytes
        try connection.send(headersFrame(streamID: 1, request, endStream: false))
        let answer = try connection.send(headersFrame(streamID: 1, RawHeaderBlock([("x-trailer", "1")]).bytes))
        #expect(answer.status == "400")
        try connection.send(headersFrame(streamID: 3, request, endStream: false))
        let pseudo = RawHeaderBlock([(":path", "/")]).bytes
        #expect(try connection.send(headersFrame(streamID: 3, pseudo)) == [ConformanceConnection.reset(3, .protocolError)])
        await connection.stop()
    }

    /// A request for `/3/device/abc` (answered `400 BadDeviceToken` at once, with no commit) with `content-length`.
    static func requestWithLength(_ connection: ConformanceConnection, _ length: String) -> ByteBuffer {
        RawHeaderBlock(connection.request(path: "/3/device/abc") + [("content-length", length)]).bytes
    }

    @Test("§8.1.1: content-length larger than the content is malformed at the end of the stream, and nothing is decided")
    func contentLengthLargerThanContent() async throws {
        var connection = try await ConformanceConnection.open()
        // A valid push (the fixture's token) that would be stored and delivered: 93 said, 43 sent.
        let body = [UInt8](#"{"aps":{"alert":"content-length says 93!"}}"#.utf8)
        #expect(body.count == 43)
        let block = RawHeaderBlock(connection.request() + [("content-length", "93")]).bytes
        #expect(try connection.send(headersFrame(streamID: 1, block, endStream: false)).isEmpty)
        #expect(try connection.send(connection.peer.data(streamID: 1, body, endStream: true)) == [ConformanceConnection.reset(1, .protocolError)])
        #expect(connection.handler.streams.isEmpty && connection.handler.inFlightCommits == 0)
        #expect(connection.protocolErrors("PROTOCOL_ERROR") == "1")
        #expect(connection.isOpen)
        await connection.stop()
    }

    @Test("§8.1.1: content beyond content-length is malformed as soon as it arrives")
    func contentLengthSmallerThanContent() async throws {
        var connection = try await ConformanceConnection.open()
        let body = [UInt8](#"{"aps":{"alert":"content-length says 5..."}}"#.utf8)
        let block = RawHeaderBlock(connection.request() + [("content-length", "5")]).bytes
        #expect(try connection.send(headersFrame(streamID: 1, block, endStream: false)).isEmpty)
        #expect(try connection.send(connection.peer.data(streamID: 1, body, endStream: false)) == [ConformanceConnection.reset(1, .protocolError)])
        #expect(connection.handler.streams.isEmpty && connection.handler.inFlightCommits == 0)
        // The rest of that body, sent before the client read the reset, is ignored.
        #expect(try connection.send(connection.peer.data(streamID: 1, [1, 2], endStream: true)).isEmpty)
        await connection.stop()
    }

    @Test("§8.1.1: content-length is checked against the sum of several DATA frames")
    func contentLengthAcrossFrames() async throws {
        var connection = try await ConformanceConnection.open()
        #expect(try connection.send(headersFrame(streamID: 1, Self.requestWithLength(connection, "10"), endStream: false)).isEmpty)
        #expect(try connection.send(connection.peer.data(streamID: 1, [1, 2, 3, 4], endStream: false)).isEmpty)
        #expect(
            try connection.send(connection.peer.data(streamID: 1, [5, 6, 7, 8], endStream: true)) == [ConformanceConnection.reset(1, .protocolError)]
        )
        // Frames that add up, padding not counted: the request goes on to be decided (400 BadDeviceToken).
        #expect(try connection.send(headersFrame(streamID: 3, Self.requestWithLength(connection, "7"), endStream: false)).isEmpty)
        #expect(try connection.send(connection.peer.data(streamID: 3, [1, 2], endStream: false)).isEmpty)
        #expect(try connection.send(type: 0x0, flags: 0x8, streamID: 3, payload: [3, 9, 9, 9, 9]).isEmpty)
        let answer = try connection.send(connection.peer.data(streamID: 3, [1, 2, 3, 4], endStream: true))
        #expect(answer.status == "400")
        await connection.stop()
    }

    @Test("§8.1.1: content-length 0 with no content, and trailers ending a stream whose content is short, are checked too")
    func contentLengthZeroAndTrailers() async throws {
        var connection = try await ConformanceConnection.open()
        #expect(try connection.send(headersFrame(streamID: 1, Self.requestWithLength(connection, "0"))).status == "400")
        #expect(try connection.send(headersFrame(streamID: 3, Self.requestWithLength(connection, "3"), endStream: false)).isEmpty)
        #expect(try connection.send(connection.peer.data(streamID: 3, [1, 2], endStream: false)).isEmpty)
        let trailers = RawHeaderBlock([("x-trailer", "1")]).bytes
        #expect(try connection.send(headersFrame(streamID: 3, trailers)) == [ConformanceConnection.reset(3, .protocolError)])
        await connection.stop()
    }
}
