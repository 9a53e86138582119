// swift-tools-version:6.1
import PackageDescription

let package = Package(
    name: "Herald",
    platforms: [.macOS(.v15)],
    products: [
        .executable(name: "herald", targets: ["HeraldCLI"]),
        .executable(name: "herald-bench", targets: ["HeraldBench"]),
        .library(name: "HeraldCore", targets: ["HeraldCore"]),
        .library(name: "HeraldJWT", targets: ["HeraldJWT"]),
        .library(name: "HeraldAuth", targets: ["HeraldAuth"]),
        .library(name: "HeraldGateway", targets: ["HeraldGateway"]),
        .library(name: "HeraldHTTP2", targets: ["HeraldHTTP2"]),
        .library(name: "HeraldWebPush", targets: ["HeraldWebPush"]),
        .library(name: "HeraldServiceWorker", targets: ["HeraldServiceWorker"]),
        .library(name: "HeraldProviderClient", targets: ["HeraldProviderClient"]),
        .library(name: "HeraldUserNotifications", targets: ["HeraldUserNotifications"]),
        .library(name: "HeraldActivityKit", targets: ["HeraldActivityKit"]),
        .library(name: "HeraldSimulator", targets: ["HeraldSimulator"]),
        .library(name: "HeraldDelivery", targets: ["HeraldDelivery"]),
        .library(name: "HeraldWeb", targets: ["HeraldWeb"]),
        .library(name: "HeraldDeviceLink", targets: ["HeraldDeviceLink"]),
        .library(name: "HeraldDeviceHost", targets: ["HeraldDeviceHost"]),
        .library(name: "HeraldServer", targets: ["HeraldServer"]),
        .library(name: "HeraldTesting", targets: ["HeraldTesting"]),
    ],
    dependencies: [
        .package(url: "https://github.com/apple/swift-nio.git", from: "2.101.2"),
        .package(url: "https://github.com/apple/swift-nio-http2.git", from: "1.46.0"),
        .package(url: "https://github.com/apple/swift-nio-ssl.git", from: "2.37.6"),
        .package(url: "https://github.com/apple/swift-crypto.git", "3.12.3"..<"5.0.0"),
        .package(url: "https://github.com/apple/swift-certificates.git", from: "1.21.1"),
        .package(url: "https://github.com/apple/swift-asn1.git", from: "1.7.4"),
        .package(url: "https://github.com/apple/swift-argument-parser.git", from: "1.8.2"),
        .package(url: "https://github.com/apple/swift-log.git", from: "1.16.2"),
        .package(url: "https://github.com/swift-server/swift-service-lifecycle.git", from: "2.13.0"),
        .package(url: "https://github.com/groue/GRDB.swift.git", from: "7.10.0"),
        .package(url: "https://github.com/swift-server/swift-prometheus.git", from: "2.4.1"),
        .package(url: "https://github.com/hummingbird-project/hummingbird.git", from: "2.28.1"),
        .package(url: "https://github.com/apple/swift-nio-extras.git", from: "1.35.2"),
        .package(url: "https://github.com/apple/swift-http-types.git", from: "1.8.0"),
        .package(url: "https://github.com/vapor/postgres-nio.git", from: "1.33.2"),
        .package(url: "https://github.com/swift-server/async-http-client.git", from: "1.37.0"),
    ],
    targets: [
        // Pure values: payloads, push types, tokens, reasons, the JSON layer. Foundation only.
        .target(name: "HeraldCore"),
        // Provider tokens: the JWT (ES256) a provider signs, its verification, the signing keys. No X.509: the fuzz targets
        // and web push's VAPID need this much and not the certificates.
        .target(name: "HeraldJWT", dependencies: ["HeraldCore", .product(name: "Crypto", package: "swift-crypto")]),
        // Provider authentication: certificates, the connection's authentication, development PKI (and HeraldJWT's
        // provider tokens, which it re-exports).
        .target(
            name: "HeraldAuth",
            dependencies: [
                "HeraldCore", "HeraldJWT",
                .product(name: "Crypto", package: "swift-crypto"),
                .product(name: "X509", package: "swift-certificates"),
                .product(name: "SwiftASN1", package: "swift-asn1"),
            ]
        ),
        // SQLite's process-wide settings, which Swift cannot make itself (`sqlite3_config` is variadic).
        .target(name: "CHeraldSQLite", linkerSettings: [.linkedLibrary("sqlite3")]),
        // Durable storage: SQLite (embedded default).
        .target(
            name: "HeraldStore",
            dependencies: [
                "HeraldCore",
                .product(name: "GRDB", package: "GRDB.swift"),
                // SQLite's C API, for the statements of the hot paths (Sources/HeraldStore/SQLite/DirectStatement.swift).
                .product(name: "GRDBSQLite", package: "GRDB.swift"),
                "CHeraldSQLite",
                .product(name: "Crypto", package: "swift-crypto"),
                .product(name: "Logging", package: "swift-log"),
            ]
        ),
        // Durable storage on PostgreSQL, for several nodes on one database (docs/postgresql.md). A target of its own so
        // that what does not run a server (the gateway's fuzz targets among them) does not build postgres-nio.
        .target(
            name: "HeraldPostgres",
            dependencies: [
                "HeraldStore",
                "HeraldCore",
                .product(name: "PostgresNIO", package: "postgres-nio"),
                .product(name: "NIOCore", package: "swift-nio"),
                .product(name: "NIOConcurrencyHelpers", package: "swift-nio"),
                .product(name: "NIOSSL", package: "swift-nio-ssl"),
                .product(name: "NIOPosix", package: "swift-nio"),
                .product(name: "Logging", package: "swift-log"),
            ]
        ),
        // The device link's wire format (JSON messages over WebSocket) and a client for it.
        .target(
            name: "HeraldDeviceLink",
            dependencies: [
                "HeraldCore",
                .product(name: "NIOCore", package: "swift-nio"),
                .product(name: "NIOPosix", package: "swift-nio"),
                .product(name: "NIOHTTP1", package: "swift-nio"),
                .product(name: "NIOWebSocket", package: "swift-nio"),
                .product(name: "Logging", package: "swift-log"),
            ]
        ),
        // The web console's files (HTML, CSS, JavaScript modules in Assets/), built into the binary.
        .target(
            name: "HeraldConsole",
            dependencies: [.product(name: "Crypto", package: "swift-crypto")],
            resources: [.embedInCode("Assets")]
        ),
        // Store-and-forward delivery: the engine, its journal and its metrics. No HTTP.
        .target(
            name: "HeraldDelivery",
            dependencies: [
                "HeraldCore", "HeraldStore",
                .product(name: "Prometheus", package: "swift-prometheus"),
                .product(name: "Logging", package: "swift-log"),
                .product(name: "ServiceLifecycle", package: "swift-service-lifecycle"),
            ]
        ),
        // The web port on Hummingbird: one router (the console and its API, the inspection API, metrics) with its
        // middleware, and the device link's WebSocket mounted beside it.
        .target(
            name: "HeraldWeb",
            dependencies: [
                "HeraldCore", "HeraldStore", "HeraldDeviceLink", "HeraldDelivery", "HeraldConsole",
                // A web push subscription's `applicationServerKey` is checked where the device link registers it.
                "HeraldWebPush",
                // The router and the server.
                .product(name: "Hummingbird", package: "hummingbird"),
                .product(name: "HummingbirdCore", package: "hummingbird"),
                .product(name: "HTTPTypes", package: "swift-http-types"),
                // The child channel: HTTP/1.1 with the device link's WebSocket upgrade.
                .product(name: "NIOCore", package: "swift-nio"),
                .product(name: "NIOPosix", package: "swift-nio"),
                .product(name: "NIOHTTP1", package: "swift-nio"),
                .product(name: "NIOWebSocket", package: "swift-nio"),
                // HTTP/1.1 parts as HTTP types, as Hummingbird reads them.
                .product(name: "NIOHTTPTypes", package: "swift-nio-extras"),
                .product(name: "NIOHTTPTypesHTTP1", package: "swift-nio-extras"),
                // Metrics, logs, the service.
                .product(name: "Prometheus", package: "swift-prometheus"),
                .product(name: "Logging", package: "swift-log"),
                .product(name: "ServiceLifecycle", package: "swift-service-lifecycle"),
            ]
        ),
        // The provider API's HTTP/2 codec: frame reader and writer, HPACK, the header-list rules (RFC 9113, RFC 7541).
        // No connection and no I/O; a target of its own so the gateway and the fuzz targets share it.
        .target(name: "HeraldHTTP2", dependencies: ["HeraldCore", .product(name: "NIOCore", package: "swift-nio")]),
        // Web push's protocol (docs/web-push.md): the aes128gcm content coding (RFC 8188), message encryption (RFC 8291),
        // VAPID (RFC 8292) with Apple's rules, and the push service's request rules (RFC 8030). No I/O; the push service
        // on the provider ports, the simulated web apps and the fuzz targets share it.
        .target(name: "HeraldWebPush", dependencies: ["HeraldCore", .product(name: "Crypto", package: "swift-crypto")]),
        // A web app's service worker, run under Node (docs/web-push.md): the scope Herald gives a site's sw.js, and the
        // process that runs it for one event at a time.
        .target(name: "HeraldServiceWorker", dependencies: ["HeraldCore"], resources: [.embedInCode("Scope")]),
        // The HTTP/2 provider API.
        .target(
            name: "HeraldGateway",
            dependencies: [
                "HeraldCore", "HeraldAuth", "HeraldStore", "HeraldHTTP2", "HeraldWebPush",
                .product(name: "NIOCore", package: "swift-nio"),
                .product(name: "NIOConcurrencyHelpers", package: "swift-nio"),
                .product(name: "NIOPosix", package: "swift-nio"),
                .product(name: "NIOHTTP1", package: "swift-nio"),
                .product(name: "NIOSSL", package: "swift-nio-ssl"),
                .product(name: "Prometheus", package: "swift-prometheus"),
                .product(name: "Logging", package: "swift-log"),
                .product(name: "ServiceLifecycle", package: "swift-service-lifecycle"),
            ]
        ),
        // An APNs provider client: HTTP/2 over TLS or h2c, token or certificate auth (`herald send`, benchmarks, tests).
        .target(
            name: "HeraldProviderClient",
            dependencies: [
                "HeraldCore", "HeraldAuth",
                .product(name: "NIOCore", package: "swift-nio"),
                .product(name: "NIOPosix", package: "swift-nio"),
                .product(name: "NIOTLS", package: "swift-nio"),
                .product(name: "NIOHTTP2", package: "swift-nio-http2"),
                .product(name: "NIOHPACK", package: "swift-nio-http2"),
                .product(name: "NIOSSL", package: "swift-nio-ssl"),
                .product(name: "Logging", package: "swift-log"),
            ]
        ),
        // The device side: Apple's UserNotifications types and rules. Foundation and HeraldCore's pure values (its
        // JSON value) only: no server, no NIO.
        .target(name: "HeraldUserNotifications", dependencies: ["HeraldCore"]),
        // The device side of Live Activities: Apple's ActivityKit names and rules on an injected clock.
        .target(name: "HeraldActivityKit", dependencies: ["HeraldCore", "HeraldUserNotifications"]),
        // A simulated device: apps from a manifest, each on its own device runtime; the device-link transport is
        // attached on top. AsyncHTTPClient downloads attachments (not URLSession: on Linux that is libcurl, which the
        // release binary would load with two dozen more libraries; docs/install.md).
        .target(
            name: "HeraldSimulator",
            dependencies: [
                "HeraldCore", "HeraldUserNotifications", "HeraldActivityKit",
                .product(name: "AsyncHTTPClient", package: "async-http-client"),
                .product(name: "NIOCore", package: "swift-nio"),
            ]
        ),
        // A simulated device on the device link: hello, registration, receive → ack → report, reconnection.
        .target(
            name: "HeraldDeviceHost",
            dependencies: [
                "HeraldCore", "HeraldDeviceLink", "HeraldSimulator", "HeraldUserNotifications",
                // A device's web apps (docs/web-push.md, "The browser side"): decryption and the service worker.
                "HeraldWebPush", "HeraldServiceWorker",
            ]
        ),
        // The wiring of `herald serve`: store, delivery engine, gateway, device link, inspection API and the console's
        // API (which sends through the gateway with the provider client).
        .target(
            name: "HeraldServer",
            dependencies: [
                "HeraldCore", "HeraldAuth", "HeraldStore", "HeraldPostgres", "HeraldGateway", "HeraldDelivery", "HeraldWeb", "HeraldProviderClient",
                .product(name: "NIOCore", package: "swift-nio"),
                .product(name: "Logging", package: "swift-log"),
                .product(name: "Prometheus", package: "swift-prometheus"),
                .product(name: "ServiceLifecycle", package: "swift-service-lifecycle"),
            ]
        ),
        // The testing kit: a server and devices in-process on ephemeral ports, with assertions.
        .target(
            name: "HeraldTesting",
            dependencies: [
                "HeraldCore", "HeraldAuth", "HeraldStore", "HeraldDelivery", "HeraldServer", "HeraldPostgres", "HeraldDeviceHost",
                "HeraldDeviceLink", "HeraldSimulator", "HeraldUserNotifications", "HeraldActivityKit", "HeraldProviderClient", "HeraldGateway",
                // A site's side of web push for the kit's web apps: encryption and VAPID, posted to an endpoint with
                // AsyncHTTPClient (HTTP/2 over TLS, HTTP/1.1 in cleartext; headers such as Location read back); a web
                // app's badge is the service worker module's AppBadgeChange.
                "HeraldWebPush", "HeraldServiceWorker",
                .product(name: "AsyncHTTPClient", package: "async-http-client"),
                .product(name: "Logging", package: "swift-log"),
                .product(name: "ServiceLifecycle", package: "swift-service-lifecycle"),
            ]
        ),
        .executableTarget(
            name: "HeraldCLI",
            dependencies: [
                "HeraldCore", "HeraldAuth", "HeraldStore", "HeraldPostgres", "HeraldGateway", "HeraldProviderClient", "HeraldDelivery",
                "HeraldWeb", "HeraldDeviceLink", "HeraldSimulator", "HeraldDeviceHost", "HeraldServer", "HeraldUserNotifications",
                "HeraldWebPush", "HeraldServiceWorker",
                .product(name: "ArgumentParser", package: "swift-argument-parser"),
                .product(name: "Logging", package: "swift-log"),
                .product(name: "ServiceLifecycle", package: "swift-service-lifecycle"),
                .product(name: "AsyncHTTPClient", package: "async-http-client"),
                .product(name: "NIOCore", package: "swift-nio"),
                .product(name: "NIOPosix", package: "swift-nio"),
            ]
        ),
        // The delivery benchmark (bench/delivery): simulated devices and a provider against a running `herald serve`.
        .executableTarget(
            name: "HeraldBench",
            dependencies: [
                "HeraldCore", "HeraldAuth", "HeraldDeviceLink", "HeraldProviderClient", "HeraldDelivery", "HeraldStore",
                "HeraldWebPush", "HeraldServiceWorker",
                .product(name: "Crypto", package: "swift-crypto"),
                .product(name: "Logging", package: "swift-log"),
                .product(name: "ServiceLifecycle", package: "swift-service-lifecycle"),
                .product(name: "ArgumentParser", package: "swift-argument-parser"),
                .product(name: "NIOCore", package: "swift-nio"),
                .product(name: "NIOPosix", package: "swift-nio"),
            ]
        ),
        .testTarget(name: "HeraldActivityKitTests", dependencies: ["HeraldActivityKit", "HeraldUserNotifications"]),
        // JSONTestSuite/: one document per file, y_/n_/i_ (JSONTestSuiteTests.swift).
        .testTarget(name: "HeraldCoreTests", dependencies: ["HeraldCore"], resources: [.copy("JSONTestSuite")]),
        .testTarget(
            name: "HeraldJWTTests",
            dependencies: ["HeraldJWT", "HeraldCore", "HeraldTestSupport", .product(name: "Crypto", package: "swift-crypto")]
        ),
        .testTarget(
            name: "HeraldAuthTests",
            dependencies: [
                "HeraldAuth", "HeraldCore", "HeraldTestSupport",
                .product(name: "Crypto", package: "swift-crypto"),
                .product(name: "X509", package: "swift-certificates"),
                .product(name: "SwiftASN1", package: "swift-asn1"),
            ]
        ),
        .testTarget(
            name: "HeraldStoreTests",
            dependencies: [
                "HeraldStore", "HeraldPostgres", "HeraldCore", "HeraldTestSupport",
                .product(name: "GRDB", package: "GRDB.swift"),
                .product(name: "Logging", package: "swift-log"),
            ]
        ),
        .testTarget(
            name: "HeraldGatewayTests",
            dependencies: [
                "HeraldGateway", "HeraldHTTP2", "HeraldAuth", "HeraldStore", "HeraldCore", "HeraldTestSupport", "HeraldWebPush",
                .product(name: "NIOCore", package: "swift-nio"),
                .product(name: "NIOEmbedded", package: "swift-nio"),
                .product(name: "Logging", package: "swift-log"),
                .product(name: "NIOPosix", package: "swift-nio"),
                .product(name: "NIOHTTP2", package: "swift-nio-http2"),
                .product(name: "NIOHPACK", package: "swift-nio-http2"),
                .product(name: "Crypto", package: "swift-crypto"),
                .product(name: "Prometheus", package: "swift-prometheus"),
            ]
        ),
        // The HTTP/2 codec alone: the frame reader, HPACK against RFC 7541 Appendix C (and NIO's encoder), random input.
        .testTarget(
            name: "HeraldHTTP2Tests",
            dependencies: [
                "HeraldHTTP2", "HeraldCore",
                .product(name: "NIOCore", package: "swift-nio"),
                .product(name: "NIOHPACK", package: "swift-nio-http2"),
            ]
        ),
        // Web push's protocol against the RFCs' own examples (RFC 8188, 8291, 8292), Apple's VAPID rules, random round trips.
        .testTarget(
            name: "HeraldWebPushTests",
            dependencies: ["HeraldWebPush", "HeraldCore", .product(name: "Crypto", package: "swift-crypto")]
        ),
        // The service worker scope under a real Node: Examples/WebPush's sw.js and the ways a worker goes wrong.
        .testTarget(name: "HeraldServiceWorkerTests", dependencies: ["HeraldServiceWorker"]),
        // The test targets' one fixture kit: the notification fixture, withStore, eventually/expectNothing/withDeadline,
        // a local HTTP server, external processes, PostgreSQL, the seeds' fixtures and device-report helpers.
        .target(
            name: "HeraldTestSupport",
            dependencies: [
                "HeraldCore", "HeraldStore", "HeraldJWT", "HeraldAuth", "HeraldGateway", "HeraldSimulator", "HeraldUserNotifications",
                .product(name: "NIOCore", package: "swift-nio"),
                .product(name: "NIOPosix", package: "swift-nio"),
                .product(name: "NIOSSL", package: "swift-nio-ssl"),
                .product(name: "NIOHTTP2", package: "swift-nio-http2"),
                .product(name: "NIOHPACK", package: "swift-nio-http2"),
                .product(name: "Logging", package: "swift-log"),
                .product(name: "ServiceLifecycle", package: "swift-service-lifecycle"),
            ],
            path: "Tests/HeraldTestSupport"
        ),
        .testTarget(name: "HeraldUserNotificationsTests", dependencies: ["HeraldUserNotifications", "HeraldTestSupport"]),
        .testTarget(
            name: "HeraldProviderClientTests",
            dependencies: [
                "HeraldProviderClient", "HeraldCore", "HeraldAuth", "HeraldTestSupport",
                .product(name: "NIOCore", package: "swift-nio"),
                .product(name: "NIOPosix", package: "swift-nio"),
                .product(name: "NIOHPACK", package: "swift-nio-http2"),
                .product(name: "NIOHTTP2", package: "swift-nio-http2"),
            ]
        ),
        // The command line's option handling and output, and its provider commands against an in-process server.
        .testTarget(
            name: "HeraldCLITests",
            dependencies: [
                "HeraldCLI", "HeraldProviderClient", "HeraldStore", "HeraldPostgres", "HeraldCore", "HeraldUserNotifications", "HeraldTesting",
                "HeraldTestSupport", "HeraldWebPush",
                .product(name: "ArgumentParser", package: "swift-argument-parser"),
                .product(name: "GRDB", package: "GRDB.swift"),
                .product(name: "Logging", package: "swift-log"),
                .product(name: "NIOCore", package: "swift-nio"),
                .product(name: "ServiceLifecycle", package: "swift-service-lifecycle"),
            ]
        ),
        // The delivery benchmark's judgement of a run and its report lines.
        .testTarget(
            name: "HeraldBenchTests",
            dependencies: ["HeraldBench", .product(name: "ArgumentParser", package: "swift-argument-parser")]
        ),
        .testTarget(
            name: "HeraldSimulatorTests",
            dependencies: ["HeraldSimulator", "HeraldUserNotifications", "HeraldCore", "HeraldTestSupport"]
        ),
        .testTarget(
            name: "HeraldDeviceLinkTests",
            dependencies: [
                "HeraldDeviceLink", "HeraldCore", "HeraldTestSupport",
                .product(name: "NIOCore", package: "swift-nio"),
                .product(name: "NIOWebSocket", package: "swift-nio"),
            ]
        ),
        .testTarget(name: "HeraldConsoleTests", dependencies: ["HeraldConsole"]),
        .testTarget(
            name: "HeraldDeliveryTests",
            dependencies: [
                "HeraldDelivery", "HeraldStore", "HeraldCore", "HeraldTestSupport",
                .product(name: "Prometheus", package: "swift-prometheus"),
                .product(name: "Logging", package: "swift-log"),
                .product(name: "ServiceLifecycle", package: "swift-service-lifecycle"),
            ]
        ),
        // The web port: device link, console, inspection API, metrics, health, access (HeraldWeb).
        .testTarget(
            name: "HeraldWebTests",
            dependencies: [
                "HeraldWeb", "HeraldDelivery", "HeraldConsole", "HeraldDeviceLink", "HeraldStore", "HeraldCore", "HeraldGateway", "HeraldAuth",
                "HeraldServer", "HeraldTestSupport",
                .product(name: "NIOCore", package: "swift-nio"),
                .product(name: "NIOEmbedded", package: "swift-nio"),
                .product(name: "NIOPosix", package: "swift-nio"),
                .product(name: "NIOWebSocket", package: "swift-nio"),
                .product(name: "Prometheus", package: "swift-prometheus"),
                .product(name: "Logging", package: "swift-log"),
                .product(name: "ServiceLifecycle", package: "swift-service-lifecycle"),
            ]
        ),
        // herald serve's wiring in-process: faults and reset APIs, retention, the console over TLS, PostgreSQL (HeraldServer).
        .testTarget(
            name: "HeraldServerTests",
            dependencies: [
                "HeraldServer", "HeraldTesting", "HeraldProviderClient", "HeraldGateway", "HeraldStore", "HeraldAuth", "HeraldCore",
                "HeraldTestSupport",
                .product(name: "Logging", package: "swift-log"),
                .product(name: "ServiceLifecycle", package: "swift-service-lifecycle"),
            ]
        ),
        // The process and browser tiers: the herald executable, the cluster behind HAProxy, Chromium, curl, aioapns, pytest.
        .testTarget(
            name: "HeraldEndToEndTests",
            dependencies: [
                "HeraldProviderClient", "HeraldDeviceLink", "HeraldGateway", "HeraldStore", "HeraldAuth", "HeraldCore", "HeraldTestSupport",
                "HeraldWebPush", .product(name: "Crypto", package: "swift-crypto"),
            ]
        ),
        // LinkedDevice (HeraldDeviceHost) against a server of the testing kit.
        .testTarget(
            name: "HeraldDeviceHostTests",
            dependencies: [
                "HeraldDeviceHost", "HeraldDeviceLink", "HeraldSimulator", "HeraldTesting", "HeraldCore", "HeraldTestSupport",
                "HeraldWebPush",
            ]
        ),
        .testTarget(
            name: "HeraldTestingTests",
            dependencies: [
                "HeraldTesting", "HeraldDeviceHost", "HeraldDeviceLink", "HeraldProviderClient", "HeraldSimulator", "HeraldStore",
                "HeraldCore", "HeraldUserNotifications", "HeraldActivityKit", "HeraldTestSupport", "HeraldGateway",
            ]
        ),
        // Examples/ProviderExample's code and tests, compiled here too so that `swift test` runs them.
        .testTarget(
            name: "ProviderExampleTests",
            dependencies: ["HeraldTesting", "HeraldProviderClient", "HeraldCore", "HeraldSimulator"],
            path: "Examples/ProviderExample",
            // The example's own manifest, for building it as a package of its own, is not a source here.
            exclude: ["Package.swift"],
            sources: ["Sources/OrderNotifier", "Tests/OrderNotifierTests"]
        ),
    ],
    swiftLanguageModes: [.v6]
)

// Test tiers (Tests/HeraldTestTiers, README "Contributing"): every test target's suites name theirs.
package.targets.append(.target(name: "HeraldTestTiers", path: "Tests/HeraldTestTiers"))
for target in package.targets where target.type == .test {
    target.dependencies.append("HeraldTestTiers")
}
