import Foundation

/// The sound played for a notification (Apple's `UNNotificationSound`).
///
/// Herald records the sound; it does not play audio. Custom sound files are looked up by name
/// only (spec §B.3): the console shows the name.
public final class UNNotificationSound: NSObject, Sendable {
    /// The sound file name, or `nil` for the system default sound.
    public let soundName: String?
    /// Whether this is a critical alert sound (needs the critical-alert authorization).
    public let isCritical: Bool
    /// The critical alert volume (0–1), if one was given.
    public let criticalVolume: Float?

    init(soundName: String?, isCritical: Bool = false, criticalVolume: Float? = nil) {
        self.soundName = soundName
        self.isCritical = isCritical
        self.criticalVolume = criticalVolume
    }

    /// The system default sound.
    public static var `default`: UNNotificationSound { UNNotificationSound(soundName: nil) }

    /// The default critical alert sound.
    public static var defaultCritical: UNNotificationSound { UNNotificationSound(soundName: nil, isCritical: true) }

    /// The default ringtone.
    public static var defaultRingtone: UNNotificationSound { UNNotificationSound(soundName: "ringtone") }

    /// A critical alert sound at `volume` (0–1).
    public static func defaultCriticalSound(withAudioVolume volume: Float) -> UNNotificationSound {
        UNNotificationSound(soundName: nil, isCritical: true, criticalVolume: min(1, max(0, volume)))
    }

    /// A critical alert sound from a file.
    public static func criticalSoundNamed(_ name: UNNotificationSoundName, withAudioVolume volume: Float = 1) -> UNNotificationSound {
        UNNotificationSound(soundName: name.rawValue, isCritical: true, criticalVolume: min(1, max(0, volume)))
    }

    /// A ringtone sound from a file (iOS 15.2; apps with the calling entitlement).
    public static func ringtoneSoundNamed(_ name: UNNotificationSoundName) -> UNNotificationSound {
        UNNotificationSound(soundName: name.rawValue)
    }

    /// A sound from a file in the app bundle or `Library/Sounds`.
    public convenience init(named name: UNNotificationSoundName) {
        self.init(soundName: name.rawValue)
    }

    /// The name shown by the console: the file name, or `default`.
    public var displayName: String { soundName ?? "default" }

    /// Sounds are equal when name, criticality and volume are equal.
    public override func isEqual(_ object: Any?) -> Bool {
        guard let other = object as? UNNotificationSound else { return false }
        return other.soundName == soundName && other.isCritical == isCritical && other.criticalVolume == criticalVolume
    }

    /// A hash of the name.
    public override var hash: Int { soundName?.hashValue ?? 0 }

    /// Parses the APNs `sound` value: a string (`"default"` or a file name) or a critical-alert
    /// dictionary with `critical`, `name` and `volume` (spec §B.1).
    static func fromPayload(_ value: JSONValue?) -> UNNotificationSound? {
        switch value {
        case .string(let name) where name.isEmpty:
            return nil
        case .string(let name):
            return name == "default" ? .default : UNNotificationSound(soundName: name)
        case .object(let dictionary):
            let name = dictionary["name"]?.stringValue
            let critical = dictionary["critical"]?.intValue == 1
            let volume = dictionary["volume"]?.doubleValue.map { Float(min(1, max(0, $0))) }
            return UNNotificationSound(soundName: name == "default" ? nil : name, isCritical: critical, criticalVolume: volume)
        default:
            return nil
        }
    }
}

/// A sound file name (Apple's `UNNotificationSoundName`).
public struct UNNotificationSoundName: RawRepresentable, Hashable, Sendable, ExpressibleByStringLiteral {
    /// The file name.
    public let rawValue: String
    /// Creates a name.
    public init(rawValue: String) { self.rawValue = rawValue }
    /// Creates a name.
    public init(_ rawValue: String) { self.rawValue = rawValue }
    /// Creates a name from a literal.
    public init(stringLiteral value: String) { self.rawValue = value }
}
