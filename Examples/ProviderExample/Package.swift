// swift-tools-version:6.1
import PackageDescription

// A provider's own package: its push code (OrderNotifier) and the tests that run it against Herald.
let package = Package(
    name: "ProviderExample",
    platforms: [.macOS(.v15)],
    dependencies: [
        // In your package: .package(url: "https://…/herald.git", from: "…")
        .package(name: "Herald", path: "../..")
    ],
    targets: [
        .target(
            name: "OrderNotifier",
            dependencies: [
                .product(name: "HeraldProviderClient", package: "Herald"),
                .product(name: "HeraldCore", package: "Herald"),
            ]
        ),
        .testTarget(
            name: "OrderNotifierTests",
            dependencies: [
                "OrderNotifier",
                .product(name: "HeraldTesting", package: "Herald"),
                .product(name: "HeraldProviderClient", package: "Herald"),
                .product(name: "HeraldSimulator", package: "Herald"),
                .product(name: "HeraldCore", package: "Herald"),
            ]
        ),
    ],
    swiftLanguageModes: [.v6]
)
