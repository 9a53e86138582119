/// Herald's choices where Apple does not document which reason APNs returns (spec §D).
///
/// Each default is explained in docs/provider-api.md; each can be changed for a deployment.
public struct ValidationPolicy: Sendable, Hashable {
    /// The reason for a body that is not a JSON object (or whose `aps` is not an object). Default `PayloadEmpty`:
    /// there is no payload APNs could deliver.
    public var malformedPayloadReason: APNSReason = .payloadEmpty
    /// Whether a `background` push must carry `content-available: 1` and no alert, sound or badge.
    public var enforceBackgroundPayloadRules = true
    /// The reason when a `background` push's payload breaks those rules. Default `InvalidPushType`: the push type
    /// does not "accurately reflect the contents" of the payload (spec §A.2).
    public var backgroundPayloadMismatchReason: APNSReason = .invalidPushType
    /// The reason when a `background` push has priority 10 ("Using priority 10 is an error", spec §A.3).
    public var backgroundPriorityReason: APNSReason = .badPriority
    /// Whether an `apns-expiration` that is already past is refused (`BadExpirationDate`) rather than accepted and
    /// expired by the delivery engine. Default false: APNs treats expiry as best effort.
    public var rejectPastExpiration = false
    /// The reason for a key used in the wrong environment: the observed `BadEnvironmentKeyInToken` by default,
    /// or the documented `BadEnvironmentKeyIdInToken` (spec §A.5, conflict note).
    public var badEnvironmentKeyReason: APNSReason = .badEnvironmentKeyInToken
    /// The longest `apns-collapse-id`, in bytes.
    public var maximumCollapseIDBytes = 64

    /// The default policy.
    public init() {}
}
