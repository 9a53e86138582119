import Foundation
import HeraldPostgres
import HeraldTestTiers
import Logging
import NIOCore
import ServiceLifecycle
import Testing

@testable import HeraldCLI

/// `herald serve`'s option parsing, without starting anything.
@Suite("herald serve: options", .tier(.unit))
struct ServeOptionsTests {
    @Test("-1 turns a port off in both spellings, --tls-port -1 and --tls-port=-1")
    func negativeOnePortDisables() throws {
        let spaced = try ServeCommand.parse(["--tls-port", "-1", "--h2c-port", "-1", "--link-port", "-1"])
        #expect(spaced.tlsPort == -1 && spaced.cleartextPort == -1 && spaced.linkPort == -1)
        let joined = try ServeCommand.parse(["--tls-port=-1", "--h2c-port=0", "--link-port=2296"])
        #expect(joined.tlsPort == -1 && joined.cleartextPort == 0 && joined.linkPort == 2296)
    }

    @Test(
        "a port outside 1 to 65535 (0 and -1 aside) is refused with one line naming the option",
        arguments: [
            (["--tls-port", "99999"], "--tls-port", 99_999), (["--tls-port", "-5"], "--tls-port", -5), (["--h2c-port=65536"], "--h2c-port", 65_536),
            (["--link-port", "-2"], "--link-port", -2),
        ] as [([String], String, Int)]
    )
    func portRange(arguments: [String], option: String, port: Int) throws {
        let parsed = try ServeCommand.parse(arguments)
        #expect(throws: CLIFailure("\(option) must be a port from 1 to 65535, 0 for any free port, or -1 to turn it off; not \(port)")) {
            try parsed.makeConfiguration()
        }
    }

    @Test("the edges of the range are taken: 65535, 1, 0 and -1")
    func portRangeEdges() throws {
        let configuration = try ServeCommand.parse(["--tls-port", "65535", "--h2c-port", "1", "--link-port", "0"]).makeConfiguration()
        #expect(configuration.gateway.tlsPort == 65_535 && configuration.gateway.cleartextPort == 1 && configuration.web?.port == 0)
        #expect(try ServeCommand.parse(["--tls-port", "-1"]).makeConfiguration().gateway.tlsPort == nil)
    }

    @Test("the defaults: TLS 2197, cleartext 2195, web port 2196")
    func defaultPorts() throws {
        let defaults = try ServeCommand.parse([])
        #expect(defaults.tlsPort == 2197 && defaults.cleartextPort == 2195 && defaults.linkPort == 2196)
    }

    @Test("--api-token: none on loopback; required with a --host that is not loopback; a token that cannot travel is refused")
    func apiToken() throws {
        #expect(try ServeCommand.parse([]).makeConfiguration().web?.access.apiToken == nil)
        #expect(try ServeCommand.parse(["--host", "::1"]).makeConfiguration().web?.access.apiToken == nil)
        let open = try ServeCommand.parse(["--host", "0.0.0.0"])
        #expect(throws: CLIFailure.self) { try open.makeConfiguration() }
        // No web port, nothing to protect.
        #expect(try ServeCommand.parse(["--host", "0.0.0.0", "--link-port", "-1"]).makeConfiguration().web?.access.apiToken == nil)
        let token = "0123456789abcdef0123"
        #expect(try ServeCommand.parse(["--host", "0.0.0.0", "--api-token", token]).makeConfiguration().web?.access.apiToken == token)
        let bad = try ServeCommand.parse(["--api-token", "short"])
        #expect(throws: CLIFailure("--api-token must be 16 to 256 visible ASCII characters without ; , \" or \\")) {
            try bad.makeConfiguration()
        }
    }

    @Test("--cluster: needs --database; --node-id defaults to the host name and provider port, is checked, and needs --cluster; --node-lease")
    func cluster() throws {
        let database = "postgres://herald@db.example/herald"
        let named = try ServeCommand.parse(["--database", database, "--cluster", "--node-id", "node-a"]).makeConfiguration()
        #expect(named.database?.cluster?.nodeID == "node-a")
        #expect(try ServeCommand.parse(["--database", database]).makeConfiguration().database?.cluster == nil)
        let byDefault = try #require(try ServeCommand.parse(["--database", database, "--cluster"]).makeConfiguration().database?.cluster)
        #expect(byDefault.nodeID.hasSuffix(":2197"), "\(byDefault.nodeID)")
        let cleartextOnly = try ServeCommand.parse(["--database", database, "--cluster", "--tls-port", "-1", "--h2c-port", "2295"])
        #expect(try cleartextOnly.makeConfiguration().database?.cluster?.nodeID.hasSuffix(":2295") == true)
        #expect(ServeCommand.defaultNodeID(port: 0).contains(":pid"))
        #expect(PostgresStore.Configuration.Cluster.isValidNodeID(ServeCommand.defaultNodeID(port: 2195)))

        let noDatabase = try ServeCommand.parse(["--cluster", "--data-dir", "/nonexistent"])
        if ProcessInfo.processInfo.environment["HERALD_DATABASE_URL"] == nil {
            #expect(throws: CLIFailure("--cluster needs --database (or HERALD_DATABASE_URL): the nodes of a cluster share one PostgreSQL database")) {
                try noDatabase.makeConfiguration()
            }
        }
        let badID = try ServeCommand.parse(["--database", database, "--cluster", "--node-id", "a b"])
        #expect(throws: CLIFailure.self) { try badID.makeConfiguration() }
        let idAlone = try ServeCommand.parse(["--database", database, "--node-id", "node-a"])
        #expect(throws: CLIFailure("--node-id needs --cluster")) { try idAlone.makeConfiguration() }

        // The lease: 5 s by default, 2 to 300, only for a cluster node.
        #expect(named.database?.cluster?.lease == .seconds(5))
        let longLease = try ServeCommand.parse(["--database", database, "--cluster", "--node-lease", "30"]).makeConfiguration()
        #expect(longLease.database?.cluster?.lease == .seconds(30))
        for bad in ["1", "301", "0"] {
            let lease = try ServeCommand.parse(["--database", database, "--cluster", "--node-lease", bad])
            #expect(throws: CLIFailure("--node-lease must be 2 to 300 seconds (a heartbeat is written every second), not \(bad)")) {
                try lease.makeConfiguration()
            }
        }
        let leaseAlone = try ServeCommand.parse(["--database", database, "--node-lease", "30"])
        #expect(throws: CLIFailure("--node-lease needs --cluster")) { try leaseAlone.makeConfiguration() }
    }

    @Test("a port that is not a number is still an error")
    func nonNumericPort() {
        #expect(throws: (any Error).self) { try ServeCommand.parse(["--tls-port", "--h2c-port"]) }
        #expect(throws: (any Error).self) { try ServeCommand.parse(["--link-port", "web"]) }
    }

    @Test("retention: 7 days by default, --retention-hours N, 0 keeps everything, negative is an error")
    func retention() throws {
        #expect(try ServeCommand.parse([]).makeConfiguration().retention?.retention == .seconds(7 * 24 * 3600))
        #expect(try ServeCommand.parse(["--retention-hours", "2"]).makeConfiguration().retention?.retention == .seconds(7200))
        // Without retention by age the service stays for the disk budget.
        #expect(try ServeCommand.parse(["--retention-hours", "0"]).makeConfiguration().retention?.retention == nil)
        #expect(try ServeCommand.parse(["--retention-hours", "0"]).makeConfiguration().retention != nil)
        let negative = try ServeCommand.parse(["--retention-hours=-1"])
        #expect(throws: CLIFailure("--retention-hours must not be negative")) { try negative.makeConfiguration() }
    }

    @Test("--max-store-mb: 1024 MiB by default, N MiB, 0 for no budget, negative is an error")
    func maxStore() throws {
        #expect(try ServeCommand.parse([]).makeConfiguration().store.maximumStoreBytes == 1024 * 1024 * 1024)
        #expect(try ServeCommand.parse(["--max-store-mb", "64"]).makeConfiguration().store.maximumStoreBytes == 64 * 1024 * 1024)
        #expect(try ServeCommand.parse(["--max-store-mb", "0"]).makeConfiguration().store.maximumStoreBytes == nil)
        let negative = try ServeCommand.parse(["--max-store-mb=-1"])
        #expect(throws: CLIFailure("--max-store-mb must be between 0 and 2^40")) { try negative.makeConfiguration() }
    }

    @Test("--generated-apns-id: time-ordered by default, random, anything else is an error")
    func generatedAPNSID() throws {
        #expect(try ServeCommand.parse([]).makeConfiguration().gateway.generatedIDFormat == .timeOrdered)
        #expect(try ServeCommand.parse(["--generated-apns-id", "random"]).makeConfiguration().gateway.generatedIDFormat == .random)
        let bad = try ServeCommand.parse(["--generated-apns-id", "v1"])
        #expect(throws: CLIFailure("--generated-apns-id must be time-ordered or random, not v1")) { try bad.makeConfiguration() }
    }

    @Test("--shutdown-timeout bounds graceful shutdown: 30 s by default, escalated to cancellation after it")
    func shutdownTimeout() throws {
        let defaults = try ServeCommand.parse([]).makeConfiguration()
        #expect(defaults.shutdownTimeout == .seconds(30))
        let configuration = try ServeCommand.parse(["--shutdown-timeout", "5"]).makeConfiguration()
        #expect(configuration.shutdownTimeout == .seconds(5))
        let group = ServeCommand.serviceGroupConfiguration(services: [], configuration: configuration, logger: Logger(label: "test"))
        #expect(group.maximumGracefulShutdownDuration == .seconds(5))
        #expect(group.gracefulShutdownSignals.map(\.description).sorted() == ["SIGINT", "SIGTERM"])
        let zero = try ServeCommand.parse(["--shutdown-timeout", "0"])
        #expect(throws: CLIFailure("--shutdown-timeout must be at least 1")) { try zero.makeConfiguration() }
    }

    @Test("--event-loops sets the provider ports' and the web port's threads")
    func eventLoops() throws {
        let configuration = try ServeCommand.parse(["--event-loops", "1"]).makeConfiguration()
        #expect(configuration.gateway.eventLoopThreads == 1 && configuration.web?.eventLoopThreads == 1)
        let defaults = try ServeCommand.parse([]).makeConfiguration()
        #expect(defaults.gateway.eventLoopThreads == System.coreCount && defaults.web?.eventLoopThreads == System.coreCount)
        #expect(throws: CLIFailure("--event-loops must be at least 1")) { try ServeCommand.parse(["--event-loops", "0"]).makeConfiguration() }
    }

    @Test("--sent-trace-hold-ms and --journal-interval-ms: 200 ms and 10 ms by default, 0 turns each off, out of range is an error")
    func deliveryJournalTiming() throws {
        let defaults = try ServeCommand.parse([]).makeConfiguration()
        #expect(defaults.sentTraceHold == .milliseconds(200) && defaults.journalInterval == .milliseconds(10))
        let off = try ServeCommand.parse(["--sent-trace-hold-ms", "0", "--journal-interval-ms", "0"]).makeConfiguration()
        #expect(off.sentTraceHold == .zero && off.journalInterval == .zero)
        #expect(throws: CLIFailure("--sent-trace-hold-ms must be between 0 and 10000")) {
            try ServeCommand.parse(["--sent-trace-hold-ms=-1"]).makeConfiguration()
        }
        #expect(throws: CLIFailure("--journal-interval-ms must be between 0 and 1000")) {
            try ServeCommand.parse(["--journal-interval-ms", "1001"]).makeConfiguration()
        }
    }

    @Test(
        "the banner's last line names the next commands, with the options this server needs beyond the defaults",
        arguments: [
            (
                ServeCommand.Listening(host: "127.0.0.1", tlsPort: 2197, cleartextPort: 2195, webPort: 2196, dataDirectory: "./herald-data"),
                "next: in another terminal, `herald device --app com.example.app` (a simulated iPhone), "
                    + "then `herald send --topic com.example.app --alert Hello`"
            ),
            (
                ServeCommand.Listening(host: "0.0.0.0", tlsPort: 3197, cleartextPort: 2195, webPort: 3196, dataDirectory: "/tmp/my data"),
                "next: in another terminal, `herald device --data-dir '/tmp/my data' --server ws://127.0.0.1:3196/device-link --app com.example.app` "
                    + "(a simulated iPhone), then `herald send --data-dir '/tmp/my data' --server https://localhost:3197 --topic com.example.app --alert Hello`"
            ),
            (
                ServeCommand.Listening(host: "10.0.0.5", tlsPort: nil, cleartextPort: 2195, webPort: 2196, dataDirectory: "./herald-data"),
                "next: in another terminal, `herald device --server ws://10.0.0.5:2196/device-link --app com.example.app` (a simulated iPhone), "
                    + "then `herald send --server http://10.0.0.5:2195 --topic com.example.app --alert Hello`"
            ),
            (
                ServeCommand.Listening(host: "127.0.0.1", tlsPort: 2197, cleartextPort: nil, webPort: nil, dataDirectory: "./herald-data"),
                "next: in another terminal, `herald tokens register --topic com.example.app` for a token, "
                    + "then `herald send --token TOKEN --topic com.example.app --alert Hello`"
            ),
        ] as [(ServeCommand.Listening, String)]
    )
    func nextStep(listening: ServeCommand.Listening, line: String) {
        #expect(ServeCommand.nextStep(listening) == line)
    }
}

/// What a command says when it finds no data directory where it runs (`DataDirectoryOptions.requireExisting()`).
@Suite("No data directory: the message points at the installed service's", .tier(.unit))
struct NoDataDirectoryMessageTests {
    @Test("Without an installed service: run herald serve here, or name the directory")
    func withoutService() {
        #expect(
            DataDirectoryOptions.noDefaultDirectory(here: "/home/ana", service: nil)
                == "no Herald data directory ./herald-data in /home/ana (run `herald serve` here first, or give --data-dir or HERALD_DATA_DIR)"
        )
    }

    @Test("With the Debian package's /var/lib/herald: the variable that names it, and as whom")
    func withService() {
        #expect(DataDirectoryOptions.serviceDataDirectory == "/var/lib/herald")
        #expect(
            DataDirectoryOptions.noDefaultDirectory(here: "/home/ana", service: "/var/lib/herald")
                == "no Herald data directory ./herald-data in /home/ana; the installed herald.service keeps its data in /var/lib/herald: "
                + "give HERALD_DATA_DIR=/var/lib/herald, as a user who may read it (e.g. sudo -u herald HERALD_DATA_DIR=/var/lib/herald herald …)"
        )
    }
}
