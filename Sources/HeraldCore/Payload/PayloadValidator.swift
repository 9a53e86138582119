/// The payload rules the gateway applies to a request body (spec §A.6, §B.3).
public struct PayloadValidator: Sendable {
    /// The undocumented choices, so a deployment can match what its clients expect.
    public var policy: ValidationPolicy

    /// Creates a validator with the given policy.
    public init(policy: ValidationPolicy = ValidationPolicy()) {
        self.policy = policy
    }

    /// Checks a body for a push type: empty, too large, not a JSON object, background-push rules.
    ///
    /// The order is fixed (docs/provider-api.md): empty → size → JSON object → `aps` rules.
    public func validate(_ body: some Collection<UInt8>, pushType: PushType) -> Result<APNSPayload, APNSReason> {
        // Whitespace only counts as empty: there is no payload to deliver.
        guard body.contains(where: { !(($0 == 0x20) || ($0 == 0x09) || ($0 == 0x0A) || ($0 == 0x0D)) }) else {
            return .failure(.payloadEmpty)
        }
        guard body.count <= pushType.maximumPayloadSize else { return .failure(.payloadTooLarge) }
        guard let root = try? JSONParser.parse(body), let object = root.objectValue else {
            return .failure(policy.malformedPayloadReason)
        }
        if let aps = object["aps"], aps.objectValue == nil {
            return .failure(policy.malformedPayloadReason)
        }
        let payload = APNSPayload(object)
        if pushType == .background, policy.enforceBackgroundPayloadRules {
            // Apple: a background push's aps "includes only the content-available key" (spec §B.3).
            guard payload.contentAvailable, payload.alert == nil, payload.sound == nil, payload.badge == nil else {
                return .failure(policy.backgroundPayloadMismatchReason)
            }
        }
        return .success(payload)
    }
}
