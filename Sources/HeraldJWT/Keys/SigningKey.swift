import Crypto
import Foundation

/// What Herald knows about one provider signing key (an APNs "authentication key"): the public half and its scope.
///
/// Two kinds exist (spec §A.7): *team-scoped* keys (``topics`` empty) may push to any topic of the team;
/// *topic-specific* keys only to their listed topics, and each may have one *related* key whose tokens may share a
/// connection with its own.
public struct SigningKey: Sendable, Hashable {
    /// The 10-character key ID (the JWT's `kid`).
    public var keyID: String
    /// The 10-character team ID that owns the key (the JWT's `iss` must equal it).
    public var teamID: String
    /// Where the key works: sandbox, production, or both for older keys.
    public var environments: EnvironmentScope
    /// The topics a topic-specific key may push to; empty for a team-scoped key.
    public var topics: Set<String>
    /// For a topic-specific key, the key ID of its related key, if any (spec §A.7, "Key scopes").
    public var relatedKeyID: String?
    /// The public key that verifies the key's tokens.
    public var publicKey: P256.Signing.PublicKey

    /// Creates a key record.
    ///
    /// - Throws: ``CredentialError/invalidKeyID`` or ``CredentialError/invalidTeamID`` when an ID is not 10 ASCII
    ///   letters or digits.
    public init(
        keyID: String,
        teamID: String,
        environments: EnvironmentScope = .both,
        topics: Set<String> = [],
        relatedKeyID: String? = nil,
        publicKey: P256.Signing.PublicKey
    ) throws(CredentialError) {
        guard Self.isWellFormedID(keyID) else { throw CredentialError.invalidKeyID.with(keyID) }
        guard Self.isWellFormedID(teamID) else { throw CredentialError.invalidTeamID.with(teamID) }
        self.keyID = keyID
        self.teamID = teamID
        self.environments = environments
        self.topics = topics
        self.relatedKeyID = relatedKeyID
        self.publicKey = publicKey
    }

    /// Creates a key record from a PEM public key (`-----BEGIN PUBLIC KEY-----`).
    public init(
        keyID: String,
        teamID: String,
        environments: EnvironmentScope = .both,
        topics: Set<String> = [],
        relatedKeyID: String? = nil,
        publicKeyPEM: String
    ) throws(CredentialError) {
        let publicKey: P256.Signing.PublicKey
        do {
            publicKey = try P256.Signing.PublicKey(pemRepresentation: publicKeyPEM)
        } catch {
            throw CredentialError.invalidPublicKey.with("\(error)")
        }
        try self.init(
            keyID: keyID,
            teamID: teamID,
            environments: environments,
            topics: topics,
            relatedKeyID: relatedKeyID,
            publicKey: publicKey
        )
    }

    /// The public key as PEM (`-----BEGIN PUBLIC KEY-----`, SubjectPublicKeyInfo).
    public var publicKeyPEM: String { publicKey.pemRepresentation }

    /// Whether this is a topic-specific key (it lists topics) rather than a team-scoped one.
    public var isTopicSpecific: Bool { !topics.isEmpty }

    /// Whether the key may push to a topic: any topic for a team-scoped key; for a topic-specific key, a listed topic
    /// or a topic whose bundle ID (the topic without its push-type suffix) is listed.
    public func allows(topic: String, bundleID: String?) -> Bool {
        guard isTopicSpecific else { return true }
        if topics.contains(topic) { return true }
        if let bundleID, topics.contains(bundleID) { return true }
        return false
    }

    /// Whether tokens of `other` may share a connection first bound to this key (spec §A.7, "Connection binding").
    ///
    /// The same key always may. Team-scoped keys of one team are treated as related to each other (APNs lists no
    /// error for a second team-scoped key of the same environment). A topic-specific key is related only to the key
    /// named by its ``relatedKeyID`` (either direction). A team-scoped key and a topic-specific key never are.
    public func isRelated(to other: SigningKey) -> Bool {
        if keyID == other.keyID { return true }
        guard teamID == other.teamID else { return false }
        switch (isTopicSpecific, other.isTopicSpecific) {
        case (false, false): return true
        case (true, true): return relatedKeyID == other.keyID || other.relatedKeyID == keyID
        default: return false
        }
    }

    /// Whether a string is a well-formed Apple key or team ID: 10 ASCII letters or digits.
    public static func isWellFormedID(_ id: String) -> Bool {
        id.utf8.count == 10
            && id.utf8.allSatisfy { byte in
                (UInt8(ascii: "A")...UInt8(ascii: "Z")).contains(byte) || (UInt8(ascii: "a")...UInt8(ascii: "z")).contains(byte)
                    || (UInt8(ascii: "0")...UInt8(ascii: "9")).contains(byte)
            }
    }

    /// A random 10-character ID of uppercase letters and digits, like Apple's key IDs.
    public static func randomID() -> String {
        let characters = Array("ABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789")
        var generator = SystemRandomNumberGenerator()
        return String((0..<10).map { _ in characters.randomElement(using: &generator)! })
    }

    /// Equal when every field, including the public key, is.
    public static func == (lhs: Self, rhs: Self) -> Bool {
        lhs.keyID == rhs.keyID && lhs.teamID == rhs.teamID && lhs.environments == rhs.environments
            && lhs.topics == rhs.topics && lhs.relatedKeyID == rhs.relatedKeyID
            && lhs.publicKey.rawRepresentation == rhs.publicKey.rawRepresentation
    }

    /// Hashes the IDs and the public key.
    public func hash(into hasher: inout Hasher) {
        hasher.combine(keyID)
        hasher.combine(teamID)
        hasher.combine(publicKey.rawRepresentation)
    }
}
