import Crypto

extension SigningKey: Codable {
    private enum CodingKeys: String, CodingKey {
        case keyID
        case teamID
        case environments
        case topics
        case relatedKeyID
        case publicKey
    }

    /// Reads a key record; `publicKey` is PEM text, `topics` an array (absent for a team-scoped key).
    public init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: CodingKeys.self)
        try self.init(
            keyID: container.decode(String.self, forKey: .keyID),
            teamID: container.decode(String.self, forKey: .teamID),
            environments: container.decodeIfPresent(EnvironmentScope.self, forKey: .environments) ?? .both,
            topics: Set(container.decodeIfPresent([String].self, forKey: .topics) ?? []),
            relatedKeyID: container.decodeIfPresent(String.self, forKey: .relatedKeyID),
            publicKeyPEM: container.decode(String.self, forKey: .publicKey)
        )
    }

    /// Writes a key record, the public key as PEM and the topics sorted, so files diff cleanly.
    public func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: CodingKeys.self)
        try container.encode(keyID, forKey: .keyID)
        try container.encode(teamID, forKey: .teamID)
        try container.encode(environments, forKey: .environments)
        if !topics.isEmpty { try container.encode(topics.sorted(), forKey: .topics) }
        try container.encodeIfPresent(relatedKeyID, forKey: .relatedKeyID)
        try container.encode(publicKeyPEM, forKey: .publicKey)
    }
}
