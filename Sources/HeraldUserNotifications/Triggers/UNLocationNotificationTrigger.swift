import Foundation

/// A latitude/longitude pair in degrees (CoreLocation's `CLLocationCoordinate2D`).
public struct CLLocationCoordinate2D: Sendable, Hashable, Codable {
    /// Latitude in degrees.
    public var latitude: Double
    /// Longitude in degrees.
    public var longitude: Double

    /// Creates a coordinate.
    public init(latitude: Double, longitude: Double) {
        self.latitude = latitude
        self.longitude = longitude
    }

    /// The great-circle distance to `other`, in metres.
    public func distance(to other: CLLocationCoordinate2D) -> Double {
        let radius = 6_371_000.0
        let lat1 = latitude * .pi / 180
        let lat2 = other.latitude * .pi / 180
        let dLat = lat2 - lat1
        let dLon = (other.longitude - longitude) * .pi / 180
        let a = sin(dLat / 2) * sin(dLat / 2) + cos(lat1) * cos(lat2) * sin(dLon / 2) * sin(dLon / 2)
        return 2 * radius * atan2(sqrt(a), sqrt(1 - a))
    }
}

/// A distance in metres (CoreLocation's `CLLocationDistance`).
public typealias CLLocationDistance = Double

/// A geographic region (CoreLocation's `CLRegion`).
open class CLRegion: NSObject {
    /// The region's identifier.
    public let identifier: String
    /// Whether entering the region fires a trigger.
    open var notifyOnEntry = true
    /// Whether leaving the region fires a trigger.
    open var notifyOnExit = true

    /// Creates a region.
    public init(identifier: String) {
        self.identifier = identifier
        super.init()
    }

    /// Whether the coordinate is inside the region; `CLRegion` itself contains nothing.
    open func contains(_ coordinate: CLLocationCoordinate2D) -> Bool { false }
}

/// A circle on the Earth's surface (CoreLocation's `CLCircularRegion`).
open class CLCircularRegion: CLRegion {
    /// The centre.
    public let center: CLLocationCoordinate2D
    /// The radius in metres.
    public let radius: CLLocationDistance

    /// Creates a circular region.
    public init(center: CLLocationCoordinate2D, radius: CLLocationDistance, identifier: String) {
        self.center = center
        self.radius = radius
        super.init(identifier: identifier)
    }

    /// Whether the coordinate is within `radius` of `center`.
    open override func contains(_ coordinate: CLLocationCoordinate2D) -> Bool {
        center.distance(to: coordinate) <= radius
    }
}

/// The immutable description of a circular region watched by a location trigger.
public struct RegionValue: Sendable, Hashable, Codable {
    /// The region's identifier.
    public var identifier: String
    /// The centre.
    public var center: CLLocationCoordinate2D
    /// The radius in metres.
    public var radius: Double
    /// Whether entering fires.
    public var notifyOnEntry: Bool
    /// Whether leaving fires.
    public var notifyOnExit: Bool

    /// Whether the coordinate is inside.
    public func contains(_ coordinate: CLLocationCoordinate2D) -> Bool { center.distance(to: coordinate) <= radius }
}

/// A trigger that fires when the device enters or leaves a region (Apple's
/// `UNLocationNotificationTrigger`).
///
/// Crossings are driven by the runtime's location source
/// (``DeviceRuntime/updateLocation(_:)``), not by a GPS. Herald evaluates crossings exactly,
/// where iOS uses heuristics.
public final class UNLocationNotificationTrigger: UNNotificationTrigger, @unchecked Sendable {
    /// The watched region (a copy taken when the trigger was created).
    public let regionValue: RegionValue

    /// Creates a trigger for a circular region; other regions never fire.
    public init(region: CLRegion, repeats: Bool) {
        let circle = region as? CLCircularRegion
        regionValue = RegionValue(
            identifier: region.identifier,
            center: circle?.center ?? CLLocationCoordinate2D(latitude: 0, longitude: 0),
            radius: circle?.radius ?? -1,
            notifyOnEntry: region.notifyOnEntry,
            notifyOnExit: region.notifyOnExit
        )
        super.init(repeats: repeats)
    }

    /// The watched region.
    public var region: CLRegion {
        let region = CLCircularRegion(center: regionValue.center, radius: regionValue.radius, identifier: regionValue.identifier)
        region.notifyOnEntry = regionValue.notifyOnEntry
        region.notifyOnExit = regionValue.notifyOnExit
        return region
    }

    /// Equal when the regions and `repeats` are equal.
    public override func isEqual(_ object: Any?) -> Bool {
        guard let other = object as? UNLocationNotificationTrigger else { return false }
        return other.regionValue == regionValue && other.repeats == repeats
    }
}
