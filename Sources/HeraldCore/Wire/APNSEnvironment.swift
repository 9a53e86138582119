/// The APNs environment a key, a certificate or a device token belongs to.
public enum APNSEnvironment: String, Sendable, Hashable, Codable, CaseIterable {
    /// Apple's development environment (`api.sandbox.push.apple.com`).
    case sandbox
    /// Apple's production environment (`api.push.apple.com`).
    case production
}
