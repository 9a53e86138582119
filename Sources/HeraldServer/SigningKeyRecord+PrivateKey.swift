import HeraldAuth
import HeraldStore

extension SigningKeyRecord {
    /// The record that registers the public half of a private key Herald made or was given (`herald keys`, the
    /// development key of `herald serve`, the testing kit's provider key).
    public init(key: PrivateSigningKey, scope: SigningKeyScope, topics: [String]?, createdAtMilliseconds: Int64) {
        self.init(
            keyID: key.keyID,
            teamID: key.teamID,
            scope: scope,
            topics: topics,
            publicKeyPEM: key.privateKey.publicKey.pemRepresentation,
            createdAtMilliseconds: createdAtMilliseconds
        )
    }
}
