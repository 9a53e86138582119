import Foundation
import HeraldJWT

/// Keys, tokens and times shared by the provider-token and authentication tests (HeraldJWTTests, HeraldAuthTests).
public enum AuthFixtures {
    /// A fixed "now", seconds since the UNIX epoch (2025-06-15).
    public static let now: Int64 = 1_750_000_000

    public static let teamID = "TEAMAAAAAA"
    public static let otherTeamID = "TEAMBBBBBB"

    /// A fresh private key with a given ID.
    public static func privateKey(_ keyID: String = "KEYAAAAAAA", team: String = teamID) -> PrivateSigningKey {
        // Fixture IDs are well formed; a failure here is a bug in the test itself.
        try! PrivateSigningKey.generate(teamID: team, keyID: keyID)
    }

    /// A verified token identity, without going through the verifier.
    public static func identity(_ key: SigningKey, token: String? = nil, issuedAt: Int64 = now) -> VerifiedProviderToken {
        VerifiedProviderToken(token: token ?? "token-\(key.keyID)-\(issuedAt)", key: key, issuedAt: issuedAt)
    }
}

/// Runs a command-line tool (openssl) for interoperability checks.
public enum Tool {
    public struct Output {
        public var status: Int32
        public var text: String
    }

    /// Runs `executable` (looked up on `PATH`) to completion; its standard output and error, in that order.
    ///
    /// With `ExternalProcess` (posix_spawn and waitpid), not Foundation's `Process`, whose exit detection on Linux
    /// waits for a socket that a program another test starts at the same moment may inherit.
    public static func run(_ executable: String, _ arguments: [String]) throws -> Output {
        let result = try ExternalProcess.runBlocking(executable, arguments)
        return Output(status: result.timedOut ? -1 : result.status, text: result.stdout + result.stderr)
    }

    public static var hasOpenSSL: Bool {
        (try? run("openssl", ["version"]).status) == 0
    }
}

/// A temporary directory removed at the end of a test.
public struct TemporaryDirectory: ~Copyable {
    public let url: URL

    public init() throws {
        url = FileManager.default.temporaryDirectory.appendingPathComponent("herald-auth-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: url, withIntermediateDirectories: true)
    }

    deinit {
        try? FileManager.default.removeItem(at: url)
    }
}
