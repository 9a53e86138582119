import Foundation
import HeraldActivityKit
import HeraldUserNotifications

import struct HeraldCore.DeviceToken
import struct HeraldCore.JSONParser
import struct HeraldCore.NotificationID

/// One installed app: its manifest, its own device runtime, its token, and what the device
/// remembers about its notifications.
struct HostedApp: Sendable {
    let manifest: AppManifest
    let runtime: DeviceRuntime
    let deviceToken: DeviceToken
    let extensionRuns: ExtensionRunLog
    /// The app's Live Activities, when its manifest declares types of activity.
    let activities: ActivityCenter?
    /// The `apns-id` behind each delivered request identifier.
    var apnsIDs: [String: NotificationID] = [:]
    /// The background push the budget holds until the user opens the app (a newer one replaces it), so that
    /// its `background` report names it when it reaches the app.
    var heldPush: (apnsID: NotificationID, identifier: String)?

    /// Builds the app's runtime from its manifest: configuration, authorization, categories,
    /// delegates and extensions. `field` is the app's manifest path, for errors.
    init(
        _ manifest: AppManifest,
        field: String,
        clock: any NotificationClock,
        code: InProcessCode,
        attachmentsDirectory: URL?
    ) throws {
        let token = manifest.deviceToken ?? DeviceToken.random()
        var configuration = DeviceRuntime.Configuration()
        configuration.bundleIdentifier = manifest.bundleID
        configuration.appName = manifest.name
        configuration.backgroundModes = Set(manifest.backgroundModes)
        configuration.backgroundPushBudget = manifest.backgroundPushBudget
        configuration.localizedStrings = manifest.localizedStrings
        configuration.deviceToken = Self.bytes(of: token)
        configuration.center.attachmentStoreDirectory = attachmentsDirectory?.appendingPathComponent(manifest.bundleID, isDirectory: true)

        let runs = ExtensionRunLog()
        let appDelegate: @Sendable () -> any UIApplicationDelegate
        if let name = manifest.delegate.code {
            guard let factory = code.appDelegates[name] else {
                throw ManifestError(.codeNotSupplied, field: "\(field).delegate.code", reason: "no Swift app delegate named \"\(name)\" was supplied")
            }
            appDelegate = factory
        } else {
            let behaviour = manifest.delegate
            appDelegate = { ManifestAppDelegate(behaviour) }
        }

        var serviceExtension: (@Sendable () throws -> UNNotificationServiceExtension)?
        if let service = manifest.serviceExtension {
            if let name = service.code {
                guard let factory = code.serviceExtensions[name] else {
                    throw ManifestError(
                        .codeNotSupplied,
                        field: "\(field).serviceExtension.code",
                        reason: "no Swift service extension named \"\(name)\" was supplied"
                    )
                }
                serviceExtension = { RecordingServiceExtension(try factory(), log: runs) }
            } else {
                serviceExtension = {
                    RecordingServiceExtension(
                        BuiltInServiceExtension(steps: service.steps, bestAttemptOnExpiry: service.bestAttemptOnExpiry, clock: clock, log: runs),
                        log: runs
                    )
                }
            }
        }

        var contentExtensions: [ContentExtensionRegistration] = []
        for (index, content) in manifest.contentExtensions.enumerated() {
            if let name = content.code {
                guard let factory = code.contentExtensions[name] else {
                    throw ManifestError(
                        .codeNotSupplied,
                        field: "\(field).contentExtensions[\(index)].code",
                        reason: "no Swift content extension named \"\(name)\" was supplied"
                    )
                }
                contentExtensions.append(ContentExtensionRegistration(attributes: content.attributes, makeController: factory))
            } else {
                contentExtensions.append(ContentExtensionRegistration(attributes: content.attributes) { BuiltInContentExtension(manifest: content) })
            }
        }

        let runtime = DeviceRuntime(
            clock: clock,
            configuration: configuration,
            appDelegate: appDelegate,
            serviceExtension: serviceExtension,
            contentExtensions: contentExtensions
        )
        runtime.center.setAuthorization(status: manifest.authorization.status, options: manifest.authorization.options)
        runtime.center.setNotificationCategories(Set(manifest.categories.map { $0.makeCategory() }))
        self.manifest = manifest
        self.runtime = runtime
        self.deviceToken = token
        self.extensionRuns = runs
        self.activities = manifest.activities.isEmpty ? nil : Self.activityCenter(manifest.activities, clock: clock)
    }

    /// A center with the manifest's types registered (each gets its push-to-start token).
    private static func activityCenter(_ types: [ActivityTypeManifest], clock: any NotificationClock) -> ActivityCenter {
        let center = ActivityCenter(clock: clock)
        for type in types {
            let attributes = type.attributes
            let contentState = type.contentState
            center.register(
                typeName: type.name,
                decodesAttributes: { hasMembers($0, attributes) },
                decodesContentState: { hasMembers($0, contentState) }
            )
        }
        return center
    }

    private static func hasMembers(_ json: Data, _ names: [String]) -> Bool {
        guard let object = (try? JSONParser.parse(json))?.objectValue else { return false }
        return names.allSatisfy(object.contains)
    }

    /// Moves the app to `state` the way a user and the system would: launching it first when it
    /// must run. Returns the calls the app received.
    func move(to state: AppLifecycleState) async -> [AppCall] {
        var calls: [AppCall] = []
        let current = await runtime.appState
        guard current != state else { return [] }
        let running = current != .notRunning && current != .terminatedByUser
        switch state {
        case .foreground:
            calls += await runtime.launch()
        case .background:
            calls += await runtime.launch()
            await runtime.moveToBackground()
        case .suspended:
            if !running { calls += await runtime.launch() }
            await runtime.suspend()
        case .terminatedByUser:
            await runtime.terminateByUser()
        case .notRunning:
            await runtime.terminateBySystem()
        }
        return calls
    }

    private static func bytes(of token: DeviceToken) -> Data {
        var bytes = [UInt8]()
        var high: UInt8?
        for digit in token.hex.utf8 {
            let value = digit <= UInt8(ascii: "9") ? digit - UInt8(ascii: "0") : digit - UInt8(ascii: "a") + 10
            if let first = high {
                bytes.append(first << 4 | value)
                high = nil
            } else {
                high = value
            }
        }
        return Data(bytes)
    }
}
