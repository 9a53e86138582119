import Foundation
import HeraldCore
import HeraldStore
import HeraldTestTiers
import NIOCore
import NIOEmbedded
import Prometheus
import Testing

@testable import HeraldGateway

/// Tiers 1 and 2: the gateway's metrics without sockets.
@Suite("Gateway metrics", .tier(.unit))
struct GatewayMetricsTests {
    @Test("every known reason is a rejection series from the start, at zero, labelled with its status")
    func reasonsPrecreated() {
        let registry = PrometheusCollectorRegistry()
        _ = GatewayMetrics(registry: registry)
        let lines = Set(registry.emitToString().split(separator: "\n").map(String.init))
        for reason in APNSReason.all {
            #expect(lines.contains(#"herald_notifications_rejected_total{reason="\#(reason.rawValue)",status="\#(reason.status)"} 0"#))
        }
        #expect(lines.contains("herald_notifications_accepted_total 0"))
        #expect(lines.contains("# TYPE herald_accept_latency_seconds histogram"))
    }

    @Test("every HTTP/2 error code and Herald limit is a protocol-error series from the start; NO_ERROR is not counted")
    func protocolErrorsPrecreated() {
        let registry = PrometheusCollectorRegistry()
        let metrics = GatewayMetrics(registry: registry)
        metrics.recordProtocolError(.noError)
        metrics.recordProtocolError(.enhanceYourCalm)
        let lines = Set(registry.emitToString().split(separator: "\n").map(String.init))
        for code in GatewayMetrics.errorCodeNames.dropFirst() + ["handshake_timeout", "connection_limit", "header_list_too_large"] {
            let value = code == "ENHANCE_YOUR_CALM" ? 1 : 0
            #expect(lines.contains(#"herald_provider_protocol_errors_total{code="\#(code)"} \#(value)"#))
        }
        #expect(!lines.contains { $0.contains(#"code="NO_ERROR""#) })
    }

    @Test("a rejected request counts under its reason and status; an unknown reason gets a series of its own")
    func rejectionCounted() async throws {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("herald-metrics-\(UUID().uuidString)")
        defer { try? FileManager.default.removeItem(at: directory) }
        let store = try SQLiteStore(configuration: .init(dataDirectory: directory.path))
        let registry = PrometheusCollectorRegistry()
        let metrics = GatewayMetrics(registry: registry)
        let processor = ProviderRequestProcessor(configuration: GatewayConfiguration(), services: ProviderServices(store: store), metrics: metrics)
        var connection = processor.makeConnectionState(clientCertificateDER: nil)
        var head = ProviderRequestHead()
        head.add(name: ":method", value: "GET")
        head.add(name: ":path", value: "/3/device/abcd")
        for _ in 0..<2 {
            guard case .respond(let response) = processor.process(head: head, body: [], bodyTooLarge: false, connection: &connection) else {
                Issue.record("expected a rejection")
                return
            }
            #expect(response.status == 405)
        }
        metrics.recordRejected(APNSReason(rawValue: "SomethingNew"))
        let lines = Set(registry.emitToString().split(separator: "\n").map(String.init))
        #expect(lines.contains(#"herald_notifications_rejected_total{reason="MethodNotAllowed",status="405"} 2"#))
        #expect(lines.contains(#"herald_notifications_rejected_total{reason="SomethingNew",status="400"} 1"#))
        #expect(lines.contains("herald_notifications_accepted_total 0"))
        await store.shutdown()
    }

    @Test("the provider-connections gauge follows connections as they open and close")
    func connectionGauge() throws {
        let registry = PrometheusCollectorRegistry()
        let metrics = GatewayMetrics(registry: registry)
        let connections = ConnectionRegistry(gauge: metrics.connections)
        let first = EmbeddedChannel()
        let second = EmbeddedChannel()
        connections.add(first)
        connections.add(second)
        #expect(registry.emitToString().contains("herald_provider_connections 2.0"))
        try first.close().wait()
        first.embeddedEventLoop.run()
        #expect(registry.emitToString().contains("herald_provider_connections 1.0"))
        #expect(connections.count == 1)
        _ = try second.finish()
        second.embeddedEventLoop.run()
        #expect(registry.emitToString().contains("herald_provider_connections 0.0"))
    }
}
