import Foundation

/// The image of a ``UNNotificationAction`` (Apple's `UNNotificationActionIcon`, iOS 15): an
/// image of the app's asset catalog drawn as a template, or an SF Symbol.
///
/// Herald draws no images; it keeps the name, and the snapshot can show it.
public final class UNNotificationActionIcon: NSObject, NSCopying, Sendable {
    /// Where the image comes from.
    public enum Source: Hashable, Sendable, Codable {
        /// An image in the app's bundle, drawn as a template.
        case template(String)
        /// A system symbol.
        case system(String)
    }

    /// The image's name and where it comes from (Herald's, for tests).
    public let source: Source

    private init(source: Source) {
        self.source = source
        super.init()
    }

    /// An icon from an image in the app's bundle.
    public convenience init(templateImageName: String) {
        self.init(source: .template(templateImageName))
    }

    /// An icon from a system symbol.
    public convenience init(systemImageName: String) {
        self.init(source: .system(systemImageName))
    }

    /// The icon itself: it is immutable.
    public func copy(with zone: NSZone? = nil) -> Any { self }

    /// Icons are equal when their sources are.
    public override func isEqual(_ object: Any?) -> Bool {
        (object as? UNNotificationActionIcon)?.source == source
    }

    /// A hash of the source.
    public override var hash: Int { source.hashValue }
}
