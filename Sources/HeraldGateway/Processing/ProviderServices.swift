import HeraldAuth
import HeraldCore
import HeraldStore

/// What the gateway needs from the rest of Herald: the store, the token verifier and the clock.
public struct ProviderServices: Sendable {
    /// Where accepted notifications, device tokens and signing keys live.
    public var store: any NotificationStore
    /// Verifies provider tokens; keys the store knows are registered in it on first use.
    public var verifier: ProviderTokenVerifier
    /// The time every rule reads.
    public var clock: any WallClock

    /// Creates the services.
    public init(store: any NotificationStore, verifier: ProviderTokenVerifier = ProviderTokenVerifier(), clock: any WallClock = SystemWallClock()) {
        self.store = store
        self.verifier = verifier
        self.clock = clock
    }
}

extension SigningKey {
    /// The verifier's form of a key the store holds.
    init(_ record: SigningKeyRecord) throws {
        let environments: EnvironmentScope =
            switch record.scope {
            case .sandbox: .sandbox
            case .production: .production
            default: .both
            }
        try self.init(
            keyID: record.keyID,
            teamID: record.teamID,
            environments: environments,
            topics: Set(record.topics ?? []),
            publicKeyPEM: record.publicKeyPEM
        )
    }
}
