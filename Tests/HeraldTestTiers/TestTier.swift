import Foundation
import Testing

/// How much of the machine a suite uses, and so how long it takes: the four tiers of Herald's tests.
///
/// Every suite names its tier with the trait `.tier(_:)`. `swift test` runs them all; to run some, name them in
/// `HERALD_TEST_TIERS` (comma-separated): `HERALD_TEST_TIERS=unit,in-process swift test`. Suites of the other tiers
/// are then reported as skipped, with the reason.
///
/// Why a trait of its own and not Swift Testing's tags: Swift 6.3's `swift test --filter` and `--skip` match test
/// names only, and a tag cannot decide whether its test runs; a trait can (``TierTrait``).
public enum TestTier: String, CaseIterable, Sendable {
    /// Values and state machines in memory, on an injected clock: no socket, no process, no sleep.
    case unit
    /// Servers in this process (gateway, web port, the testing kit) on loopback ports; temporary data directories.
    case inProcess = "in-process"
    /// Real processes: the `herald` executable, curl, h2load, the Python client library.
    case process
    /// Headless Chromium driving the web console.
    case browser

    /// The tiers `HERALD_TEST_TIERS` selects: every tier when it is unset or empty.
    ///
    /// - Throws: ``UnknownTestTier`` for a name that is no tier (a typo would otherwise skip everything).
    public static func selected(in environment: [String: String] = ProcessInfo.processInfo.environment) throws -> Set<TestTier> {
        guard let value = environment["HERALD_TEST_TIERS"], !value.trimmingCharacters(in: .whitespaces).isEmpty else {
            return Set(allCases)
        }
        var tiers = Set<TestTier>()
        for name in value.split(separator: ",").map({ $0.trimmingCharacters(in: .whitespaces).lowercased() }) where !name.isEmpty {
            guard let tier = allCases.first(where: { $0.rawValue == name || $0.rawValue.replacingOccurrences(of: "-", with: "") == name })
            else { throw UnknownTestTier(name: name) }
            tiers.insert(tier)
        }
        return tiers
    }
}

/// A name in `HERALD_TEST_TIERS` that is no ``TestTier``.
public struct UnknownTestTier: Error, CustomStringConvertible {
    /// The name as given.
    public let name: String

    public var description: String {
        "HERALD_TEST_TIERS names '\(name)', which is no tier; the tiers are \(TestTier.allCases.map(\.rawValue).joined(separator: ", "))"
    }
}

/// A suite's tier: runs it when `HERALD_TEST_TIERS` selects the tier, skips it (with the reason) otherwise.
public struct TierTrait: SuiteTrait, TestTrait {
    /// The tier.
    public let tier: TestTier

    public var isRecursive: Bool { true }

    public func prepare(for test: Test) async throws {
        guard try !TestTier.selected().contains(tier) else { return }
        // A condition that is false is how Swift Testing skips a test with a reason.
        try await ConditionTrait.enabled(if: false, "the \(tier.rawValue) tier is not in HERALD_TEST_TIERS").prepare(for: test)
    }
}

extension Trait where Self == TierTrait {
    /// Puts a suite (and every test in it) in a tier.
    public static func tier(_ tier: TestTier) -> Self { TierTrait(tier: tier) }
}
