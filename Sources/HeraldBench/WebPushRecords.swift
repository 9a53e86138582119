/// One round of `herald-bench webpush --phase throughput`: N web pushes and N APNs pushes against the same server,
/// at the same concurrency over the same number of connections (one JSON line).
struct WebPushThroughputRecord: Codable, Sendable, Hashable {
    var kind = "throughput"
    var round: Int
    /// Web apps subscribed (one per device), each also holding the APNs token the reference posts to.
    var webApps: Int
    /// Requests of each kind.
    var pushes: Int
    var concurrency: Int
    var connections: Int
    /// The size of every request's body: the encrypted web push body, and the APNs payload made to match it.
    var bodyBytes: Int
    /// Which kind went first in this round (the order alternates so that neither always meets a fuller store).
    var first: String
    var webPush: BurstOutcome
    var apns: BurstOutcome
    /// The server's CPU time per request, microseconds, while each kind ran; `nil` without `--server-pid`.
    var webPushServerMicroseconds: Double?
    var apnsServerMicroseconds: Double?

    /// Web pushes accepted per second over APNs pushes accepted per second (the goal: ≥ 0.8); `nil` when
    /// the reference accepted nothing. Stored, so that the JSON line holds the figure the table reads.
    var ratio: Double?

    /// Whether every request of both kinds was answered 2xx.
    var isClean: Bool { webPush.isClean && apns.isClean }

    /// `rate / reference`, or `nil` for a reference of 0.
    static func ratio(_ rate: Double, to reference: Double) -> Double? {
        reference > 0 ? rate / reference : nil
    }

    /// The server's CPU microseconds per request between two readings of its CPU seconds.
    static func microsecondsPerRequest(cpuBefore: Double?, cpuAfter: Double?, requests: Int) -> Double? {
        guard let cpuBefore, let cpuAfter, requests > 0 else { return nil }
        return (cpuAfter - cpuBefore) * 1e6 / Double(requests)
    }
}

/// One run of `herald-bench webpush --phase latency`: declarative web pushes at a steady rate to random web apps,
/// provider request → shown on the web app (one JSON line).
struct WebPushLatencyRecord: Codable, Sendable, Hashable {
    var kind = "latency"
    var run: Int
    var webApps: Int
    /// Offered messages per second.
    var rate: Double
    var seconds: Double
    /// Messages the run should send (`rate × seconds`).
    var scheduled: Int
    /// The most messages that were due and not yet sent at any moment: above 0, the sender fell behind.
    var maximumLag: Int
    var figures: ShownFigures
    /// The server's CPU, cores, over the run and its drain; `nil` without `--server-pid`.
    var serverCores: Double?

    /// Whether every scheduled message was sent, accepted and shown once.
    var isClean: Bool { figures.isClean && figures.sent == scheduled }
}
