import ArgumentParser
import Crypto
import Foundation
import HeraldProviderClient
import HeraldWebPush
import NIOCore
import NIOPosix

/// `herald-bench webpush`: the push service (docs/web-push.md) under load (bench/webpush/README.md).
///
/// Devices on the device link each hold one web app subscribed to the bench site. `--phase throughput` posts N
/// encrypted web pushes at concurrency C, then N APNs pushes of the same size at the same concurrency over the same
/// number of connections, and reports each accepted rate and their ratio. `--phase latency` posts declarative messages
/// at a steady rate to random web apps, which decrypt and read them: provider request → shown; then it times the
/// site's `sw.js` under Node on its own (`--worker-pushes`).
struct WebPushCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "webpush",
        abstract: "Web push: accepted/s against POST /3/device at the same concurrency; provider request → shown on the web app."
    )

    /// What one invocation measures; `bench/webpush/run.sh` starts a fresh server for each.
    enum Phase: String, ExpressibleByArgument, CaseIterable, Sendable {
        case throughput
        case latency
    }

    /// The two kinds of push the throughput phase compares.
    enum PushKind: String, ExpressibleByArgument, CaseIterable, Sendable {
        case webPush = "web-push"
        case apns
    }

    @OptionGroup var server: ServerOptions

    @OptionGroup var provider: ProviderOptions

    @Option(help: "throughput or latency (the latency phase also times the service worker).")
    var phase: Phase

    @Option(name: .customLong("web-apps"), help: "Devices, each with one subscribed web app.")
    var webApps = 1000

    @Option(help: "Throughput: requests of each kind per round.")
    var pushes = 20_000

    @Option(help: "Throughput: requests in flight at once, over all the connections (the same for both kinds).")
    var concurrency = 64

    @Option(help: "Provider HTTP/2 connections of each kind.")
    var connections = 4

    @Option(help: "Throughput: rounds (each measures both kinds, the order alternating).")
    var rounds = 1

    @Option(help: "Throughput: unrecorded requests of each kind first.")
    var warmup = 2000

    @Option(help: "Throughput: the kind the first round sends first (web-push or apns); later rounds alternate.")
    var first: PushKind = .webPush

    @Option(help: "Latency: messages per second.")
    var rate = 100.0

    @Option(help: "Latency: seconds the provider sends in each run.")
    var seconds = 20.0

    @Option(help: "Latency: measured runs (one JSON line each).")
    var runs = 1

    @Option(name: .customLong("warmup-seconds"), help: "Latency: an unrecorded first run of this length at the same rate.")
    var warmupSeconds = 2.0

    @Option(name: .customLong("max-in-flight"), help: "Latency: requests waiting for an answer at most; beyond, sending falls behind.")
    var maximumInFlight = 1000

    @Option(name: .customLong("drain-seconds"), help: "Latency: how long a run waits after sending for the last messages to be shown.")
    var drainSeconds = 10.0

    @Option(name: .customLong("service-worker"), help: "Latency: the service worker timed apart (empty: none).")
    var serviceWorker = "Examples/WebPush/sw.js"

    @Option(name: .customLong("worker-pushes"), help: "Latency: pushes given to the service worker (0 skips its timing).")
    var workerPushes = 20

    @Option(help: "The node to run the service worker with (default: found on PATH).")
    var node: String?

    @Option(help: "The VAPID sub the bench site signs with.")
    var subject = "mailto:bench@example.com"

    @Option(help: "Append one JSON line per measured round or run to this file.")
    var json: String?

    func validate() throws {
        guard webApps > 0, connections > 0, concurrency > 0, rounds > 0, runs > 0 else {
            throw ValidationError("--web-apps, --connections, --concurrency, --rounds and --runs must be at least 1")
        }
        guard pushes > 0, warmup >= 0 else { throw ValidationError("--pushes must be at least 1 and --warmup 0 or more") }
        guard pushes <= 99_999_999, warmup <= 99_999_999 else { throw ValidationError("--pushes and --warmup are below 10^8") }
        guard rate > 0, seconds > 0, warmupSeconds >= 0, drainSeconds >= 0 else {
            throw ValidationError("--rate and --seconds must be above 0, --warmup-seconds and --drain-seconds 0 or more")
        }
        guard rate * seconds <= 99_999_999, maximumInFlight > 0, workerPushes >= 0 else {
            throw ValidationError("--rate × --seconds must be below 10^8, --max-in-flight at least 1, --worker-pushes 0 or more")
        }
    }

    func run() async throws {
        let group = MultiThreadedEventLoopGroup(numberOfThreads: server.eventLoops ?? System.coreCount)
        let site = VAPIDSigner(privateKey: P256.Signing.PrivateKey(), subject: subject)
        var fleet = WebAppFleet(host: server.host, port: server.linkPort, group: group, concurrency: server.connectConcurrency)
        let connectStart = ContinuousClock.now
        var clean = true
        do {
            try await fleet.grow(to: webApps, applicationServerKey: site.publicKey.base64URL, concurrency: server.connectConcurrency)
            say(
                "\(webApps) devices connected, a web app subscribed on each, in \(String(format: "%.1f", (ContinuousClock.now - connectStart).inSeconds)) s"
            )
            let pushService = try PushService(endpoints: fleet.webApps.map(\.endpoint), site: site)
            switch phase {
            case .throughput: clean = try await measureThroughput(fleet: fleet, pushService: pushService, group: group)
            case .latency: clean = try await measureLatency(fleet: fleet, pushService: pushService, group: group)
            }
        } catch {
            await fleet.close()
            try? await group.shutdownGracefully()
            throw error
        }
        await fleet.close()
        try await group.shutdownGracefully()
        // A run with any answer but 2xx, or a message not shown, is flagged: the records are written, the status says so.
        if !clean { throw ExitCode(2) }
    }

    /// Provider clients of one kind, connected: `authentication` `.none` for web pushes (each request carries its VAPID
    /// header), the provider token for APNs.
    func connectClients(
        _ count: Int,
        endpoint: APNSProviderClient.Endpoint,
        authentication: APNSProviderClient.Authentication,
        group: any EventLoopGroup
    ) async throws -> [APNSProviderClient] {
        var clients: [APNSProviderClient] = []
        for _ in 0..<count {
            let client = try APNSProviderClient(configuration: .init(endpoint: endpoint, authentication: authentication), eventLoopGroup: group)
            try await client.connect()
            clients.append(client)
        }
        return clients
    }
}

/// The push service as the bench site sees it: the origin of its endpoints, and one VAPID `Authorization` for them
/// (`aud` = that origin, 12 hours), reused for every push as a site's library does.
struct PushService: Sendable {
    /// `http://host:port`: where every endpoint points.
    let origin: String
    /// `vapid t=…, k=…`.
    let authorization: String

    /// The push service of `endpoints`, signed for by `site`.
    ///
    /// - Throws: ``BenchFailure`` as ``origin(of:)`` does.
    init(endpoints: [String], site: VAPIDSigner, nowSeconds: Int64 = Int64(Date().timeIntervalSince1970)) throws {
        origin = try Self.origin(of: endpoints)
        authorization = try site.authorization(endpoint: origin + "/", nowSeconds: nowSeconds)
    }

    /// The one origin of `endpoints`, which must share it and be cleartext (the benchmark posts over h2c).
    ///
    /// - Throws: ``BenchFailure`` for no endpoints, endpoints of several origins, or an `https:` one.
    static func origin(of endpoints: [String]) throws -> String {
        guard let first = endpoints.first, let origin = VAPIDSigner.origin(ofEndpoint: first) else {
            throw BenchFailure("the push service gave no endpoint with an origin (\(endpoints.first ?? "none"))")
        }
        guard origin.hasPrefix("http://") else {
            throw BenchFailure("the endpoints are at \(origin); the benchmark posts over h2c: start herald serve with --tls-port=-1")
        }
        if let other = endpoints.first(where: { VAPIDSigner.origin(ofEndpoint: $0) != origin }) {
            throw BenchFailure("the endpoints have several origins: \(first), \(other)")
        }
        return origin
    }

    /// The path of `endpoint` on its server: what follows the authority (`/push/<id>`), `/` when nothing does.
    static func path(of endpoint: String) -> String {
        guard let separator = endpoint.range(of: "://") else { return endpoint }
        let rest = endpoint[separator.upperBound...]
        return rest.firstIndex(of: "/").map { String(rest[$0...]) } ?? "/"
    }

    /// A web push of `plaintext` to `app`: encrypted now for its keys (RFC 8291), `TTL` an hour, the shared VAPID
    /// header.
    func request(_ plaintext: [UInt8], to app: BenchWebApp) throws -> ProviderRawRequest {
        let body = try WebPushEncryption.encrypt(plaintext, p256dh: app.keys.p256dh, auth: app.keys.auth)
        return ProviderRawRequest(
            path: Self.path(of: app.endpoint),
            fields: [
                .init("ttl", "3600"), .init("content-encoding", "aes128gcm"), .init("content-type", "application/octet-stream"),
                .init("authorization", authorization),
            ],
            body: body
        )
    }
}
