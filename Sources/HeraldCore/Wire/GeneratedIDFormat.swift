/// The form of the `apns-id` Herald makes for a request that carries none.
///
/// APNs "creates a new UUID" without saying which version (spec §A.3); Herald's default is time-ordered, so that
/// the store's `apns-id` index grows at its end (docs/provider-api.md, "Generated apns-id values").
public enum GeneratedIDFormat: String, Sendable, CaseIterable {
    /// Version 7 (RFC 9562): the Unix time in milliseconds, then random bits. The default.
    case timeOrdered = "time-ordered"
    /// Version 4: random bits only.
    case random

    /// A new identifier of this form.
    public func make() -> NotificationID {
        switch self {
        case .timeOrdered: NotificationID.timeOrdered()
        case .random: NotificationID.random()
        }
    }
}
