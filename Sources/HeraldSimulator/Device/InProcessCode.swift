import HeraldUserNotifications

/// Swift code a host supplies for manifest entries that say `"code": "<name>"`: the app team's own
/// service extensions, content extension controllers and app delegates, run in-process.
///
/// The same manifest then works everywhere: the testing kit passes the code, and a host without
/// it (`herald device`) refuses the manifest with a ``ManifestError`` naming the field.
public struct InProcessCode: Sendable {
    /// Service extensions by name; each notification gets a new instance, as on iOS.
    public var serviceExtensions: [String: @Sendable () throws -> UNNotificationServiceExtension]
    /// Content extension controllers by name; each expansion gets a new controller.
    public var contentExtensions: [String: @Sendable () -> any UNNotificationContentExtension]
    /// App delegates by name; each launch of the app process gets a new delegate.
    public var appDelegates: [String: @Sendable () -> any UIApplicationDelegate]

    /// Creates a set of code; empty by default.
    public init(
        serviceExtensions: [String: @Sendable () throws -> UNNotificationServiceExtension] = [:],
        contentExtensions: [String: @Sendable () -> any UNNotificationContentExtension] = [:],
        appDelegates: [String: @Sendable () -> any UIApplicationDelegate] = [:]
    ) {
        self.serviceExtensions = serviceExtensions
        self.contentExtensions = contentExtensions
        self.appDelegates = appDelegates
    }
}
