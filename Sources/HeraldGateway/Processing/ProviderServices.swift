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
    /// Told of each broadcast once it is accepted (and, on a channel with storage policy 1, kept), right after its
    /// `200` is handed to the connection: the channel hub, which sends it to the devices subscribed now. Must not block.
    public var onBroadcast: (@Sendable (ChannelMessage) -> Void)?
    /// Told of each channel a provider deleted (the hub ends its subscriptions): id, bundle id, environment.
    public var onChannelDeleted: (@Sendable (String, String, APNSEnvironment) -> Void)?
    /// The newest web pushes the push service refused, for the inspection API's traces (docs/web-push.md).
    public var webPushRefusals = WebPushRefusalLog()
    /// The longest a channel with storage policy 1 keeps its most recent broadcast, in seconds (Apple: 8 hours).
    public var maximumBroadcastStorageSeconds: Int64 = 8 * 3600

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
