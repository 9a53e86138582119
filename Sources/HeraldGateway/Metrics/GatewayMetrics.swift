import HeraldCore
import HeraldHTTP2
import Prometheus

/// The provider API's Prometheus metrics (docs/metrics.md): accepted and rejected requests, the accept
/// latency, and the open provider connections.
///
/// Every series is created up front, one counter per known reason, so that a request only increments an
/// atomic counter (and, when accepted, records into the latency histogram): no label is built and nothing is
/// allocated per request. Hand the same registry to the delivery engine's metrics and to the `/metrics`
/// endpoint; a gateway created without metrics records into a registry of its own that nobody reads.
public struct GatewayMetrics: Sendable {
    /// The upper bounds of the accept-latency buckets: a group commit with `fsync` takes milliseconds.
    public static let acceptLatencyBuckets: [Duration] = [
        .microseconds(500), .milliseconds(1), .microseconds(2500), .milliseconds(5), .milliseconds(10), .milliseconds(25),
        .milliseconds(50), .milliseconds(100), .milliseconds(250), .milliseconds(500), .seconds(1), .milliseconds(2500),
    ]

    static let rejectedName = "herald_notifications_rejected_total"
    static let rejectedHelp = "Provider requests answered with an error, by APNs reason and HTTP status."

    private let registry: PrometheusCollectorRegistry
    private let accepted: Counter
    private let rejectedByReason: [String: Counter]
    private let acceptLatency: DurationHistogram
    let connections: Gauge
    /// `herald_provider_protocol_errors_total`, indexed by HTTP/2 error code (RFC 9113 §7); none for NO_ERROR.
    private let protocolErrorsByCode: [Counter?]
    /// Connections closed before their first request bytes (`handshake_timeout`).
    let handshakeTimeouts: Counter
    /// Connections closed at accept because `maximumConnections` were open (`connection_limit`).
    let connectionLimitRefusals: Counter
    /// Requests answered `431` for a header list above SETTINGS_MAX_HEADER_LIST_SIZE (`header_list_too_large`).
    let headerListTooLarge: Counter
    /// Connections ended for a header block whose encoded size passed `maximumHeaderBlockSize`, refused before it was
    /// buffered (`header_block_too_large`; also counted as ENHANCE_YOUR_CALM).
    let headerBlockTooLarge: Counter
    /// Requests a fault rule applied to: answered instead of the real answer, or delayed (docs/faults.md).
    private let faults: Counter

    static let protocolErrorsName = "herald_provider_protocol_errors_total"
    static let protocolErrorsHelp = "Provider connections and streams ended by a protocol error or a limit, by HTTP/2 error code or Herald name."
    /// The names of RFC 9113 §7's error codes, by value.
    static let errorCodeNames = [
        "NO_ERROR", "PROTOCOL_ERROR", "INTERNAL_ERROR", "FLOW_CONTROL_ERROR", "SETTINGS_TIMEOUT", "STREAM_CLOSED", "FRAME_SIZE_ERROR",
        "REFUSED_STREAM", "CANCEL", "COMPRESSION_ERROR", "CONNECT_ERROR", "ENHANCE_YOUR_CALM", "INADEQUATE_SECURITY", "HTTP_1_1_REQUIRED",
    ]

    /// An error code's name as RFC 9113 §7 spells it, or `0x…` for one it does not define.
    static func name(of code: HTTP2ErrorCode) -> String {
        let value = code.networkCode
        return value >= 0 && value < errorCodeNames.count ? errorCodeNames[value] : "0x\(String(value, radix: 16))"
    }

    /// Registers the gateway's metrics in `registry`.
    public init(registry: PrometheusCollectorRegistry) {
        self.registry = registry
        accepted = registry.makeCounter(
            descriptor: MetricNameDescriptor(
                metricName: "herald_notifications_accepted_total",
                unitName: "",
                helpText: "Provider requests answered 200: the notification is durable and handed to delivery."
            )
        )
        var rejected: [String: Counter] = [:]
        for reason in APNSReason.all {
            rejected[reason.rawValue] = Self.makeRejectedCounter(reason, in: registry)
        }
        rejectedByReason = rejected
        acceptLatency = registry.makeDurationHistogram(
            descriptor: MetricNameDescriptor(
                metricName: "herald_accept_latency_seconds",
                unitName: "",
                helpText: "From a complete provider request to its 200, including the durable commit."
            ),
            buckets: Self.acceptLatencyBuckets
        )
        connections = registry.makeGauge(
            descriptor: MetricNameDescriptor(
                metricName: "herald_provider_connections",
                unitName: "",
                helpText: "Open provider connections (TLS and cleartext)."
            )
        )
        func protocolErrors(_ code: String) -> Counter {
            registry.makeCounter(
                descriptor: MetricNameDescriptor(metricName: Self.protocolErrorsName, unitName: "", helpText: Self.protocolErrorsHelp),
                labels: [("code", code)]
            )
        }
        protocolErrorsByCode = Self.errorCodeNames.enumerated().map { $0.offset == 0 ? nil : protocolErrors($0.element) }
        handshakeTimeouts = protocolErrors("handshake_timeout")
        connectionLimitRefusals = protocolErrors("connection_limit")
        headerListTooLarge = protocolErrors("header_list_too_large")
        headerBlockTooLarge = protocolErrors("header_block_too_large")
        faults = registry.makeCounter(
            descriptor: MetricNameDescriptor(
                metricName: "herald_faults_total",
                unitName: "",
                helpText: "Provider requests a fault rule applied to: answered with its error (also counted as rejected) or delayed."
            )
        )
    }

    /// Counts a request a fault rule applied to.
    func recordFault() {
        faults.increment()
    }

    /// Counts a GOAWAY or RST_STREAM Herald sent with an error code (NO_ERROR is not counted).
    func recordProtocolError(_ code: HTTP2ErrorCode) {
        let value = code.networkCode
        guard value != 0 else { return }
        if value > 0, value < protocolErrorsByCode.count {
            protocolErrorsByCode[value]?.increment()
        } else {
            registry.makeCounter(
                descriptor: MetricNameDescriptor(metricName: Self.protocolErrorsName, unitName: "", helpText: Self.protocolErrorsHelp),
                labels: [("code", "0x\(String(value, radix: 16))")]
            )
            .increment()
        }
    }

    /// Counts a request answered `200`, `startedAt` being when the request was complete.
    func recordAccepted(startedAt: ContinuousClock.Instant) {
        accepted.increment()
        acceptLatency.record(startedAt.duration(to: .now))
    }

    /// Counts a request answered with an error.
    func recordRejected(_ reason: APNSReason) {
        if let counter = rejectedByReason[reason.rawValue] {
            counter.increment()
        } else {
            // A reason the table does not know: the registry returns the same series for the same labels.
            Self.makeRejectedCounter(reason, in: registry).increment()
        }
    }

    static let webPushName = "herald_web_push_requests_total"
    static let webPushHelp = "Web push requests (docs/web-push.md) by HTTP status and reason: 201 with an empty reason for accepted."

    /// Counts a web push request's answer: `201` (`reason` nil) once its message is durable or answered as sent, else
    /// the refusal. Off the APNs hot path, so the series is looked up by label (the registry keeps one per label set).
    func recordWebPush(status: Int, reason: String?) {
        registry.makeCounter(
            descriptor: MetricNameDescriptor(metricName: Self.webPushName, unitName: "", helpText: Self.webPushHelp),
            labels: [("status", String(status)), ("reason", reason ?? "")]
        )
        .increment()
    }

    private static func makeRejectedCounter(_ reason: APNSReason, in registry: PrometheusCollectorRegistry) -> Counter {
        registry.makeCounter(
            descriptor: MetricNameDescriptor(metricName: rejectedName, unitName: "", helpText: rejectedHelp),
            labels: [("reason", reason.rawValue), ("status", String(reason.status))]
        )
    }
}
