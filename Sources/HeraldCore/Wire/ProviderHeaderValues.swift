/// The `apns-*` header values of a request, parsed and checked (spec §A.2).
public struct ProviderHeaderValues: Sendable, Hashable {
    /// `apns-id`, or `nil` when the provider sent none.
    public var apnsID: NotificationID?
    /// `apns-push-type`, or `nil` when absent.
    public var pushType: PushType?
    /// `apns-priority`, or `nil` when absent (10 applies).
    public var priority: APNSPriority?
    /// `apns-expiration` in seconds since the epoch, or `nil` when absent.
    public var expiration: Int64?
    /// `apns-collapse-id`, or `nil` when absent.
    public var collapseID: String?

    /// Parses and checks the header values in a fixed order: apns-id, push type, priority, expiration, collapse id.
    public static func parse(
        _ head: ProviderRequestHead,
        policy: ValidationPolicy,
        nowSeconds: Int64
    ) -> Result<ProviderHeaderValues, APNSReason> {
        var values = ProviderHeaderValues()
        if let text = head.apnsID {
            guard let id = NotificationID(text) else { return .failure(.badMessageId) }
            values.apnsID = id
        }
        if let text = head.pushType {
            let pushType = PushType(rawValue: text)
            guard pushType.isKnown else { return .failure(.invalidPushType) }
            values.pushType = pushType
        }
        if let text = head.priority {
            guard let number = Int(text.trimmingSpaces), APNSPriority(rawValue: number).isValid else {
                return .failure(.badPriority)
            }
            values.priority = APNSPriority(rawValue: number)
            // Apple: for background pushes "Always use priority 5. Using priority 10 is an error." (spec §A.3)
            if values.pushType == .background, number == 10 { return .failure(policy.backgroundPriorityReason) }
        }
        if let text = head.expiration {
            guard let seconds = Int64(text.trimmingSpaces), seconds >= 0 else { return .failure(.badExpirationDate) }
            if policy.rejectPastExpiration, seconds != 0, seconds < nowSeconds { return .failure(.badExpirationDate) }
            values.expiration = seconds
        }
        if let text = head.collapseID {
            guard text.utf8.count <= policy.maximumCollapseIDBytes else { return .failure(.badCollapseId) }
            values.collapseID = text
        }
        return .success(values)
    }
}

extension String {
    var trimmingSpaces: Substring {
        var slice = self[...]
        while slice.first == " " || slice.first == "\t" { slice = slice.dropFirst() }
        while slice.last == " " || slice.last == "\t" { slice = slice.dropLast() }
        return slice
    }
}
