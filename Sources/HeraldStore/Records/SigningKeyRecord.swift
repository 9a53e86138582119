import Foundation
import HeraldCore

/// The environments a provider signing key may be used in.
///
/// Apple lets a token-auth key be limited to the sandbox or production environment, or allow both.
public struct SigningKeyScope: RawRepresentable, Hashable, Sendable, CustomStringConvertible {
    /// The stored form: `sandbox`, `production` or `both`.
    public let rawValue: String

    /// Creates a scope from its stored form; `nil` for any other value.
    public init?(rawValue: String) {
        guard Self.allRawValues.contains(rawValue) else { return nil }
        self.rawValue = rawValue
    }

    private init(unchecked rawValue: String) {
        self.rawValue = rawValue
    }

    /// Only Apple's development environment.
    public static let sandbox = Self(unchecked: "sandbox")
    /// Only Apple's production environment.
    public static let production = Self(unchecked: "production")
    /// Both environments.
    public static let both = Self(unchecked: "both")

    private static let allRawValues: Set<String> = ["sandbox", "production", "both"]

    /// Whether a key with this scope may sign requests for the environment.
    public func allows(_ environment: APNSEnvironment) -> Bool {
        rawValue == "both" || rawValue == environment.rawValue
    }

    /// The stored form.
    public var description: String { rawValue }
}

/// A provider's token-auth signing key (the public half of an Apple `.p8` key), as the gateway checks JWTs.
public struct SigningKeyRecord: Hashable, Sendable {
    /// The key id, the JWT header's `kid`: 1 to 64 letters, digits, `.`, `_` or `-` (Apple's are 10 characters).
    public var keyID: String
    /// The team id, the JWT's `iss` claim: 1 to 64 letters, digits, `.`, `_` or `-` (Apple's are 10 characters).
    public var teamID: String
    /// The environments the key may be used in.
    public var scope: SigningKeyScope
    /// The topics the key may send to; `nil` allows every topic of the team.
    public var topics: [String]?
    /// The P-256 public key in PEM form (`-----BEGIN PUBLIC KEY-----`).
    public var publicKeyPEM: String
    /// When the key was added, in milliseconds since the epoch.
    public var createdAtMilliseconds: Int64

    /// Creates a signing key record.
    public init(
        keyID: String,
        teamID: String,
        scope: SigningKeyScope,
        topics: [String]?,
        publicKeyPEM: String,
        createdAtMilliseconds: Int64
    ) {
        self.keyID = keyID
        self.teamID = teamID
        self.scope = scope
        self.topics = topics
        self.publicKeyPEM = publicKeyPEM
        self.createdAtMilliseconds = createdAtMilliseconds
    }

    /// Whether the key may sign a request for this topic.
    public func allows(topic: String) -> Bool {
        guard let topics else { return true }
        return topics.contains(topic)
    }
}

extension SigningKeyRecord {
    /// A key as a store keeps it: the scope's and topics' stored forms (topics as a JSON array, or `nil` for all);
    /// fails with ``StoreError/corruptRecord`` naming the key when either cannot be read back.
    package static func stored(
        keyID: String,
        teamID: String,
        scope scopeName: String,
        topicsJSON: String?,
        publicKeyPEM: String,
        createdAtMilliseconds: Int64
    ) throws -> SigningKeyRecord {
        guard let scope = SigningKeyScope(rawValue: scopeName) else {
            throw StoreError.corruptRecord.with(detail: "signing_key \(keyID): environment \(scopeName)")
        }
        var topics: [String]?
        if let topicsJSON {
            guard let decoded = try? JSONDecoder().decode([String].self, from: Data(topicsJSON.utf8)) else {
                throw StoreError.corruptRecord.with(detail: "signing_key \(keyID): topics \(topicsJSON)")
            }
            topics = decoded
        }
        return SigningKeyRecord(
            keyID: keyID,
            teamID: teamID,
            scope: scope,
            topics: topics,
            publicKeyPEM: publicKeyPEM,
            createdAtMilliseconds: createdAtMilliseconds
        )
    }
}
