// swift-tools-version:6.1
import PackageDescription

// Herald's libFuzzer targets (docs/fuzzing.md), a package of their own so that the root package's `swift build` does not
// build them and their sanitized build (Fuzz/run.sh) compiles the modules they fuzz, not the whole server. Each target
// depends on the smallest module that holds its parser, through the root package's library products.
//
// Built by Fuzz/run.sh with -DHERALD_FUZZ and libFuzzer, each runs libFuzzer's driver; in a plain build
// (`swift build --package-path Fuzz`) each is a small program that replays input files (FuzzDriver).

// The root package by path: its identity is the name of the folder it is checked out in, which a clone may choose.
let herald = Context.packageDirectory.split(separator: "/").dropLast().last.map { String($0).lowercased() } ?? "herald"

let package = Package(
    name: "HeraldFuzz",
    platforms: [.macOS(.v15)],
    dependencies: [
        .package(path: ".."),
        .package(url: "https://github.com/apple/swift-nio.git", from: "2.101.2"),
        .package(url: "https://github.com/apple/swift-crypto.git", "3.12.3"..<"5.0.0"),
    ],
    targets: [
        .target(name: "CLibFuzzer", path: "CLibFuzzer"),
        .target(name: "FuzzDriver", dependencies: ["CLibFuzzer"], path: "Driver"),
        // What the targets import, for Fuzz/run.sh to build in one go (Dependencies/FuzzDependencies.swift).
        .target(
            name: "FuzzDependencies",
            dependencies: [
                .product(name: "HeraldJWT", package: herald), .product(name: "HeraldCore", package: herald),
                .product(name: "HeraldDeviceLink", package: herald), .product(name: "HeraldHTTP2", package: herald),
                .product(name: "HeraldWebPush", package: herald),
                .product(name: "Crypto", package: "swift-crypto"), .product(name: "NIOCore", package: "swift-nio"),
                .product(name: "NIOWebSocket", package: "swift-nio"),
            ],
            path: "Dependencies"
        ),
    ],
    swiftLanguageModes: [.v6]
)

let fuzzTargets: [(name: String, dependencies: [Target.Dependency])] = [
    (
        "FuzzHTTP2Frames",
        [.product(name: "HeraldHTTP2", package: herald), .product(name: "NIOCore", package: "swift-nio")]
    ),
    ("FuzzHPACK", [.product(name: "HeraldHTTP2", package: herald), .product(name: "NIOCore", package: "swift-nio")]),
    ("FuzzJSONPayload", [.product(name: "HeraldCore", package: herald)]),
    ("FuzzJWT", [.product(name: "HeraldJWT", package: herald), .product(name: "Crypto", package: "swift-crypto")]),
    ("FuzzAPNSFile", [.product(name: "HeraldCore", package: herald)]),
    (
        "FuzzDeviceLinkFrames",
        [
            .product(name: "HeraldDeviceLink", package: herald), .product(name: "HeraldCore", package: herald),
            .product(name: "NIOCore", package: "swift-nio"), .product(name: "NIOWebSocket", package: "swift-nio"),
        ]
    ),
    ("FuzzConsoleRelay", [.product(name: "HeraldDeviceLink", package: herald)]),
    ("FuzzHealthAnswer", [.product(name: "HeraldCore", package: herald)]),
    ("FuzzWebPushContent", [.product(name: "HeraldWebPush", package: herald), .product(name: "Crypto", package: "swift-crypto")]),
    ("FuzzVAPID", [.product(name: "HeraldWebPush", package: herald), .product(name: "Crypto", package: "swift-crypto")]),
]
for fuzzTarget in fuzzTargets {
    package.targets.append(
        .executableTarget(name: fuzzTarget.name, dependencies: fuzzTarget.dependencies + ["FuzzDriver"], path: fuzzTarget.name)
    )
}
