import Foundation
import HeraldAuth
import HeraldCore
import HeraldHTTP2
import HeraldStore
import HeraldTestSupport
import NIOCore
import NIOEmbedded
import NIOHPACK
import Prometheus

@testable import HeraldGateway

/// The client side of an in-process HTTP/2 connection: writes request frames, reads the server's frames.
///
/// Requests are encoded by NIO's HPACK encoder (Huffman, dynamic table) and answers decoded by NIO's decoder, so the
/// server's codec is checked against another implementation, not against itself.
struct HTTP2TestPeer {
    private var encoder = HPACKEncoder(allocator: ByteBufferAllocator())
    private var decoder = HPACKDecoder(allocator: ByteBufferAllocator())
    private var reader = HTTP2FrameReader(expectingPreface: false)

    /// The client preface and a SETTINGS frame.
    func preface(settings: [HTTP2InboundFrame.Setting] = []) -> ByteBuffer {
        var buffer = ByteBuffer(bytes: HTTP2FrameReader.preface)
        buffer.writeSettingsFrame(settings)
        return buffer
    }

    mutating func headers(streamID: UInt32, _ fields: [(String, String)], endStream: Bool = false) throws -> ByteBuffer {
        var block = ByteBuffer()
        try encoder.encode(headers: HPACKHeaders(fields), to: &block)
        var buffer = ByteBuffer()
        buffer.writeHeadersFrame(streamID: streamID, endStream: endStream) { $0.writeImmutableBuffer(block) }
        return buffer
    }

    func data(streamID: UInt32, _ bytes: [UInt8], endStream: Bool = true) -> ByteBuffer {
        var buffer = ByteBuffer()
        buffer.writeDataFrame(streamID: streamID, bytes: bytes[...], endStream: endStream)
        return buffer
    }

    /// Every frame the server wrote so far.
    mutating func frames(from channel: EmbeddedChannel) throws -> [ServerFrame] {
        var frames: [ServerFrame] = []
        while let bytes = try channel.readOutbound(as: ByteBuffer.self) {
            frames += try parse(bytes)
        }
        return frames
    }

    mutating func parse(_ bytes: ByteBuffer) throws -> [ServerFrame] {
        reader.append(bytes)
        var frames: [ServerFrame] = []
        while let frame = try reader.next() {
            if case .headers(let streamID, let endStream, var block) = frame {
                let headers = try decoder.decodeHeaders(from: &block)
                frames.append(.headers(streamID: streamID, headers.map { [$0.name, $0.value] }, endStream: endStream))
            } else {
                frames.append(.other(frame))
            }
        }
        return frames
    }

    /// A server frame with its header block decoded.
    enum ServerFrame: Equatable {
        case headers(streamID: UInt32, [[String]], endStream: Bool)
        case other(HTTP2InboundFrame)

        var headerFields: [String: String] {
            guard case .headers(_, let fields, _) = self else { return [:] }
            return Dictionary(fields.map { ($0[0], $0[1]) }, uniquingKeysWith: { first, _ in first })
        }
    }
}

/// A processor over a fresh store with one signing key and one registered token, for in-process connections.
struct ProcessorFixture {
    let directory: URL
    let store: SQLiteStore
    let processor: ProviderRequestProcessor
    let key: PrivateSigningKey
    let token: DeviceToken
    let clock: ManualWallClock
    /// Where the processor's metrics go.
    let registry: PrometheusCollectorRegistry

    static func make() async throws -> ProcessorFixture {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("herald-h2-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        let clock = ManualWallClock()
        let store = try SQLiteStore(configuration: .init(dataDirectory: directory.path), clock: clock)
        let key = try PrivateSigningKey.generate(teamID: GatewayFixture.teamID, keyID: GatewayFixture.keyID)
        try await store.addSigningKey(
            SigningKeyRecord(
                keyID: GatewayFixture.keyID,
                teamID: GatewayFixture.teamID,
                scope: .both,
                topics: nil,
                publicKeyPEM: key.privateKey.publicKey.pemRepresentation,
                createdAtMilliseconds: clock.nowMilliseconds()
            )
        )
        let configuration = GatewayConfiguration()
        let token = try await store.registerToken(bundleID: GatewayFixture.topic, environment: configuration.environment, deviceID: nil)
        let registry = PrometheusCollectorRegistry()
        let processor = ProviderRequestProcessor(
            configuration: configuration,
            services: ProviderServices(store: store, clock: clock),
            metrics: GatewayMetrics(registry: registry)
        )
        return ProcessorFixture(directory: directory, store: store, processor: processor, key: key, token: token, clock: clock, registry: registry)
    }

    func connection(
        initialStreams: Int = 1,
        maximumStreams: Int = 1000,
        limits: GatewayConfiguration.Limits = .init()
    ) -> ProviderHTTP2Connection {
        ProviderHTTP2Connection(
            processor: processor,
            connection: processor.makeConnectionState(clientCertificateDER: nil),
            initialConcurrentStreams: initialStreams,
            maximumConcurrentStreams: maximumStreams,
            limits: limits
        )
    }

    /// The headers of a valid alert push to the fixture's token.
    func alertRequest(path: String? = nil) -> [(String, String)] {
        [
            (":method", "POST"), (":scheme", "https"), (":path", path ?? "/3/device/\(token.hex)"), (":authority", "localhost"),
            ("authorization", "bearer \(key.makeToken(issuedAt: clock.nowSeconds()))"), ("apns-topic", GatewayFixture.topic),
            ("apns-push-type", "alert"),
        ]
    }

    func stop() async {
        await store.shutdown()
        try? FileManager.default.removeItem(at: directory)
    }
}
