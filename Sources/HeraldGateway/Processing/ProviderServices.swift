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
    /// Told of each notification and its store sequence once it is durable, before its `200` is sent (the
    /// delivery engine, which names the notification by that sequence because a provider may reuse an `apns-id`),
    /// with the device-side effect of the fault rule that applied to it, if any (docs/faults.md).
    ///
    /// Runs on the store's writer thread: it must only hand the notification on, never block.
    public var onAccepted: (@Sendable (AcceptedNotification, Int64, DeviceFault?) -> Void)?
    /// The failures on demand in force (docs/faults.md); empty unless someone adds a rule.
    public var faults: FaultTable

    /// Creates the services.
    public init(
        store: any NotificationStore,
        verifier: ProviderTokenVerifier = ProviderTokenVerifier(),
        clock: any WallClock = SystemWallClock(),
        onAccepted: (@Sendable (AcceptedNotification, Int64, DeviceFault?) -> Void)? = nil,
        faults: FaultTable = FaultTable()
    ) {
        self.store = store
        self.verifier = verifier
        self.clock = clock
        self.onAccepted = onAccepted
        self.faults = faults
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
