import HeraldTestTiers
import NIOCore
import NIOHTTP2
import Testing

@testable import HeraldGateway

/// RFC 9113 §8 (expressing HTTP semantics) on the provider port: malformed requests are stream errors.
@Suite("RFC 9113 §8: HTTP semantics", .tier(.unit))
struct RFC9113Section8Tests {
    /// How a valid request is made malformed.
    enum Fault: String, CaseIterable, CustomTestStringConvertible {
        case upperCaseName, pseudoAfterRegular, connectionHeader, transferEncoding, teOtherThanTrailers, unknownPseudo
        case responsePseudo, duplicatePath, missingScheme

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
}
