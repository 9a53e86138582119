import Foundation
import Synchronization

/// One simulated device running one app: its notification center, its app object and
/// delegate, its service and content extensions, on an injected clock.
///
/// A host feeds it remote notification payloads (``receiveRemoteNotification(_:collapseID:apnsID:)``),
/// drives time (the clock, then ``fireDueNotifications()``), location
/// (``updateLocation(_:)``) and the user (``launch()``, ``tap(_:)``, ``perform(actionIdentifier:on:userText:)``,
/// ``dismiss(_:)``, ``expand(_:)``), and reads what the phone shows (``snapshot()``) and did
/// (``events``).
public actor DeviceRuntime {
    /// Settings of the device and of the app's Info.plist.
    public struct Configuration: Sendable {
        /// The app's bundle identifier.
        public var bundleIdentifier = "com.example.app"
        /// The app's display name (the notification header).
        public var appName = "App"
        /// `UIBackgroundModes` of the app's Info.plist.
        public var backgroundModes: Set<String> = ["remote-notification"]
        /// The service extension's budget in seconds (spec §C.7: about 30 s).
        public var serviceExtensionBudget: TimeInterval = 30
        /// The fetch completion handler's budget in seconds (spec §C.9: 30 s).
        public var backgroundFetchBudget: TimeInterval = 30
        /// The budget of the notification delegate's completion handlers (Herald's choice: 30 s).
        public var delegateBudget: TimeInterval = 30
        /// How many background wakes by `content-available` are allowed per window (Herald's
        /// choice after "two or three per hour", spec §B.3); `nil` for no limit.
        public var backgroundPushBudget: BackgroundPushBudget? = BackgroundPushBudget(limit: 3, window: 3600)
        /// The app's `Localizable.strings` for `loc-key`s.
        public var localizedStrings: [String: String] = [:]
        /// Whether the app has location authorization (location triggers need it).
        public var locationAuthorized = true
        /// The device token handed to the app after `registerForRemoteNotifications()`.
        public var deviceToken = Data((0..<32).map { UInt8($0) })
        /// The notification center's settings.
        public var center = UNUserNotificationCenter.Configuration()

        /// The defaults described above.
        public init() {}
    }

    /// The clock.
    public nonisolated let clock: any NotificationClock
    /// The configuration.
    public nonisolated let configuration: Configuration
    /// The app's notification center.
    public nonisolated let center: UNUserNotificationCenter
    /// The app object.
    public nonisolated let application: UIApplication

    let makeAppDelegate: (@Sendable () -> any UIApplicationDelegate)?
    let makeServiceExtension: (@Sendable () throws -> UNNotificationServiceExtension)?
    let contentExtensions: [ContentExtensionRegistration]

    var eventLog: [DeviceEvent] = []
    var callLog: [AppCall] = []
    var backgroundWakes: [Date] = []
    var heldBackgroundPush: RemotePayload?
    var lastLocation: CLLocationCoordinate2D?
    var deviceLocked = false
    var expanded: ContentExtensionSession?

    /// Creates a device with the app not running.
    public init(
        clock: any NotificationClock = SystemNotificationClock(),
        configuration: Configuration = Configuration(),
        appDelegate: (@Sendable () -> any UIApplicationDelegate)? = nil,
        serviceExtension: (@Sendable () throws -> UNNotificationServiceExtension)? = nil,
        contentExtensions: [ContentExtensionRegistration] = []
    ) {
        self.clock = clock
        self.configuration = configuration
        self.center = UNUserNotificationCenter(clock: clock, configuration: configuration.center)
        self.application = UIApplication(backgroundModes: configuration.backgroundModes)
        self.makeAppDelegate = appDelegate
        self.makeServiceExtension = serviceExtension
        self.contentExtensions = contentExtensions
    }

    /// Everything the device did, in order.
    public var events: [DeviceEvent] { eventLog }

    /// Every call the system made into the app, in order.
    public var appCalls: [AppCall] { callLog }

    /// The app's state.
    public var appState: AppLifecycleState { application.lifecycleState }

    /// Runs `body` as app code: ``UNUserNotificationCenter/current()`` and
    /// ``UIApplication/shared`` are this device's.
    public nonisolated func withCurrentCenter<T>(_ body: () throws -> T) rethrows -> T {
        try center.withCurrent { try UIApplication.$bound.withValue(application) { try body() } }
    }

    /// Runs async `body` as app code (see ``withCurrentCenter(_:)``).
    public nonisolated func withCurrentCenterAsync<T>(_ body: () async throws -> T) async rethrows -> T {
        try await center.withCurrentAsync { try await UIApplication.$bound.withValue(application) { try await body() } }
    }

    /// Locks or unlocks the device (actions with `.authenticationRequired` need it unlocked).
    public func setDeviceLocked(_ locked: Bool) { deviceLocked = locked }

    func record(_ kind: DeviceEvent.Kind, _ identifier: String? = nil, _ detail: String = "") {
        eventLog.append(DeviceEvent(date: clock.now, kind: kind, notificationIdentifier: identifier, detail: detail))
    }

    func recordCall(_ call: AppCall, _ identifier: String? = nil) {
        callLog.append(call)
        record(.appCalled, identifier, call.rawValue)
    }

    func setState(_ state: AppLifecycleState) {
        guard application.lifecycleState != state else { return }
        application.setLifecycle(state)
        record(.appState, nil, state.rawValue)
    }

    /// Calls an optional delegate method: its completion form, or, if that is not implemented,
    /// its `async` form; waits at most `budget` seconds on the clock for the answer.
    /// Returns the answer (nil when late) and whether a real implementation ran.
    func callOptional<Value: Sendable>(
        budget: TimeInterval,
        completionForm: (@escaping @Sendable (Value) -> Void) -> Void,
        asyncForm: @escaping @Sendable () async -> Value
    ) async -> (value: Value?, implemented: Bool) {
        let slot = CallbackSlot<Value>()
        let deadline = clock.now.addingTimeInterval(budget)
        let implemented = withCurrentCenter { ImplementationProbe.check { completionForm { slot.fulfil($0) } } }
        if implemented {
            return (await slot.value(before: deadline, on: clock), true)
        }
        let center = center
        let application = application
        let clock = clock
        return await withTaskGroup(of: (value: Value?, implemented: Bool)?.self) { group in
            group.addTask {
                let (value, implemented) = await center.withCurrentAsync {
                    await UIApplication.$bound.withValue(application) { await ImplementationProbe.checkAsync { await asyncForm() } }
                }
                return (implemented ? value : nil, implemented)
            }
            group.addTask {
                try? await clock.sleep(until: deadline)
                return nil
            }
            let first = await group.next() ?? nil
            group.cancelAll()
            return first ?? (nil, true)
        }
    }
}

/// How many background wakes (`content-available` pushes while the app is not in the
/// foreground) the device allows per window. Over the budget, the newest push is held and
/// delivered when the user opens the app; an older held push is discarded (spec §C.9).
public struct BackgroundPushBudget: Sendable, Hashable, Codable {
    /// Wakes allowed per window.
    public var limit: Int
    /// The window in seconds.
    public var window: TimeInterval

    /// Creates a budget.
    public init(limit: Int, window: TimeInterval) {
        self.limit = limit
        self.window = window
    }
}
