import Foundation
import HeraldUserNotifications

import enum HeraldCore.APNSEnvironment
import struct HeraldCore.DeviceToken
import enum HeraldCore.Topic

/// One app on a simulated device: identity, permissions, categories, state, delegate behaviour and
/// extensions. Every field but `bundleID` has a default (see docs/device-manifest.md).
public struct AppManifest: Sendable, Hashable, Codable {
    /// The bundle identifier (the `apns-topic` of alert pushes).
    public var bundleID: String
    /// The display name, shown in the notification header.
    public var name: String
    /// The APNs environment the app's token belongs to.
    public var environment: APNSEnvironment
    /// The app's device token; `nil` makes a random one when the device starts.
    public var deviceToken: DeviceToken?
    /// What the user allowed.
    public var authorization: AuthorizationManifest
    /// The app's state when the device starts.
    public var state: AppLifecycleState
    /// `UIBackgroundModes` of the app's Info.plist.
    public var backgroundModes: [String]
    /// The categories the app registers.
    public var categories: [CategoryManifest]
    /// How the app's delegates behave.
    public var delegate: DelegateManifest
    /// The app's `Localizable.strings` for `loc-key` payloads.
    public var localizedStrings: [String: String]
    /// Background pushes allowed per window (over it, the newest is held until the app opens).
    public var backgroundPushBudget: BackgroundPushBudget
    /// The notification service extension, if any.
    public var serviceExtension: ServiceExtensionManifest?
    /// The notification content extensions.
    public var contentExtensions: [ContentExtensionManifest]
    /// The app's types of Live Activity; an app with none drops `liveactivity` pushes (`unsupportedPushType`).
    public var activities: [ActivityTypeManifest]

    /// Creates an app with the documented defaults.
    public init(
        bundleID: String,
        name: String? = nil,
        environment: APNSEnvironment = .sandbox,
        deviceToken: DeviceToken? = nil,
        authorization: AuthorizationManifest = AuthorizationManifest(),
        state: AppLifecycleState = .notRunning,
        backgroundModes: [String] = ["remote-notification"],
        categories: [CategoryManifest] = [],
        delegate: DelegateManifest = DelegateManifest(),
        localizedStrings: [String: String] = [:],
        backgroundPushBudget: BackgroundPushBudget = AppManifest.defaultBackgroundPushBudget,
        serviceExtension: ServiceExtensionManifest? = nil,
        contentExtensions: [ContentExtensionManifest] = [],
        activities: [ActivityTypeManifest] = []
    ) {
        self.activities = activities
        self.bundleID = bundleID
        self.name = name ?? Self.defaultName(for: bundleID)
        self.environment = environment
        self.deviceToken = deviceToken
        self.authorization = authorization
        self.state = state
        self.backgroundModes = backgroundModes
        self.categories = categories
        self.delegate = delegate
        self.localizedStrings = localizedStrings
        self.backgroundPushBudget = backgroundPushBudget
        self.serviceExtension = serviceExtension
        self.contentExtensions = contentExtensions
    }

    /// Three wakes per rolling hour (the runtime's default, after Apple's "two or three per hour").
    public static let defaultBackgroundPushBudget = BackgroundPushBudget(limit: 3, window: 3600)

    /// A display name from the bundle id: its last component, capitalized (`com.example.chat` → `Chat`), or the one
    /// before when the last only says it is an app (`com.example.app` → `Example`, not "App" on every notification).
    static func defaultName(for bundleID: String) -> String {
        let components = bundleID.split(separator: ".").map(String.init).filter { !$0.isEmpty }
        guard var name = components.last else { return bundleID }
        if genericNames.contains(name.lowercased()), components.count >= 2 { name = components[components.count - 2] }
        return name.prefix(1).uppercased() + name.dropFirst()
    }

    private static let genericNames: Set<String> = ["app", "ios", "iphone", "ipad", "mobile", "client"]

    enum CodingKeys: String, CodingKey, CaseIterable {
        case bundleID, name, environment, deviceToken, authorization, state, backgroundModes, categories, delegate
        case localizedStrings, backgroundPushBudget, serviceExtension, contentExtensions, activities
    }

    private enum BudgetKeys: String, CodingKey, CaseIterable {
        case limit, window
    }

    /// Decodes an app, checking every field.
    public init(from decoder: any Decoder) throws {
        try decoder.rejectUnknownKeys(CodingKeys.self)
        let container = try decoder.container(keyedBy: CodingKeys.self)
        bundleID = try container.decodeNonEmpty(.bundleID)
        guard Topic.isWellFormed(bundleID) else {
            throw container.invalid(.bundleID, "a bundle id has letters, digits, \".\", \"-\" and \"_\" only")
        }
        name = try container.decode(.name, or: Self.defaultName(for: bundleID))
        environment = try container.decodeName(.environment, table: ["sandbox": .sandbox, "production": .production], or: "sandbox")
        if let hex = try container.decodeIfPresent(String.self, forKey: .deviceToken) {
            guard let token = DeviceToken(hex: hex) else {
                throw container.invalid(.deviceToken, "must be an even number (\(DeviceToken.hexLengthRange)) of hex digits")
            }
            deviceToken = token
        }
        authorization = try container.decode(.authorization, or: AuthorizationManifest())
        state = try container.decodeName(.state, table: ManifestNames.appStates, or: "notRunning")
        backgroundModes = try container.decode(.backgroundModes, or: ["remote-notification"])
        if backgroundModes.contains("") { throw container.invalid(.backgroundModes, "a background mode must not be empty") }
        categories = try container.decode(.categories, or: [])
        delegate = try container.decode(.delegate, or: DelegateManifest())
        localizedStrings = try container.decode(.localizedStrings, or: [:])
        if container.contains(.backgroundPushBudget), try !container.decodeNil(forKey: .backgroundPushBudget) {
            let budgetDecoder = try container.superDecoder(forKey: .backgroundPushBudget)
            try budgetDecoder.rejectUnknownKeys(BudgetKeys.self)
            let budget = try budgetDecoder.container(keyedBy: BudgetKeys.self)
            let limit = try budget.decode(.limit, or: Self.defaultBackgroundPushBudget.limit)
            let window = try budget.decode(.window, or: Self.defaultBackgroundPushBudget.window)
            guard limit >= 0 else { throw budget.invalid(.limit, "must be ≥ 0") }
            guard window > 0, window.isFinite else { throw budget.invalid(.window, "must be a number of seconds > 0") }
            backgroundPushBudget = BackgroundPushBudget(limit: limit, window: window)
        } else {
            backgroundPushBudget = Self.defaultBackgroundPushBudget
        }
        serviceExtension = try container.decodeIfPresent(ServiceExtensionManifest.self, forKey: .serviceExtension)
        contentExtensions = try container.decode(.contentExtensions, or: [])
        activities = try container.decode(.activities, or: [])
        var seen: Set<String> = []
        for (index, category) in categories.enumerated() where !seen.insert(category.identifier).inserted {
            throw ManifestError(
                .duplicate,
                field: ManifestError.path(
                    container.codingPath + [CodingKeys.categories, AnyCodingKey(intValue: index), CategoryManifest.CodingKeys.identifier]
                ),
                reason: "the category \"\(category.identifier)\" appears twice"
            )
        }
    }

    /// Encodes every field, defaults included.
    public func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: CodingKeys.self)
        try container.encode(bundleID, forKey: .bundleID)
        try container.encode(name, forKey: .name)
        try container.encode(environment.rawValue, forKey: .environment)
        try container.encodeIfPresent(deviceToken?.hex, forKey: .deviceToken)
        try container.encode(authorization, forKey: .authorization)
        try container.encode(state.rawValue, forKey: .state)
        try container.encode(backgroundModes, forKey: .backgroundModes)
        try container.encode(categories, forKey: .categories)
        try container.encode(delegate, forKey: .delegate)
        try container.encode(localizedStrings, forKey: .localizedStrings)
        try container.encode(backgroundPushBudget, forKey: .backgroundPushBudget)
        try container.encodeIfPresent(serviceExtension, forKey: .serviceExtension)
        try container.encode(contentExtensions, forKey: .contentExtensions)
        try container.encode(activities, forKey: .activities)
    }
}

/// What the user allowed when the app asked (`requestAuthorization(options:)`).
public struct AuthorizationManifest: Sendable, Hashable, Codable {
    /// Whether the user allowed notifications (`false`: denied).
    public var granted: Bool
    /// The options granted; with `provisional`, the status is provisional (quiet delivery).
    public var options: UNAuthorizationOptions

    /// Creates an authorization; by default alerts, sounds and badges are allowed.
    public init(granted: Bool = true, options: UNAuthorizationOptions = [.alert, .sound, .badge]) {
        self.granted = granted
        self.options = options
    }

    /// The status the center starts with.
    public var status: UNAuthorizationStatus {
        guard granted else { return .denied }
        return options.contains(.provisional) ? .provisional : .authorized
    }

    enum CodingKeys: String, CodingKey, CaseIterable {
        case granted, options
    }

    /// Decodes an authorization.
    public init(from decoder: any Decoder) throws {
        try decoder.rejectUnknownKeys(CodingKeys.self)
        let container = try decoder.container(keyedBy: CodingKeys.self)
        granted = try container.decode(.granted, or: true)
        options = UNAuthorizationOptions(
            try container.decodeNames(.options, table: ManifestNames.authorizationOptions, or: ["alert", "sound", "badge"])
        )
    }

    /// Encodes an authorization.
    public func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: CodingKeys.self)
        try container.encode(granted, forKey: .granted)
        try container.encode(ManifestNames.names(of: options, in: ManifestNames.authorizationOptions), forKey: .options)
    }
}
