import Foundation
import HeraldActivityKit
import HeraldUserNotifications

import enum HeraldCore.APNSEnvironment
import struct HeraldCore.JSONParser
import struct HeraldCore.NotificationID

/// The whole device as a console shows it: every app's state and notification center.
public struct DeviceSnapshot: Sendable, Hashable, Codable {
    /// The device's name.
    public var name: String
    /// When it was taken, on the device's clock.
    public var capturedAt: Date
    /// The apps, in manifest order.
    public var apps: [AppSnapshot]
}

/// One app as a console shows it.
public struct AppSnapshot: Sendable, Hashable, Codable {
    /// The bundle id.
    public var bundleID: String
    /// The display name.
    public var name: String
    /// The APNs environment of its token.
    public var environment: APNSEnvironment
    /// Its device token (hex).
    public var deviceToken: String
    /// The app's state.
    public var state: AppLifecycleState
    /// `notDetermined`, `denied`, `authorized`, `provisional` or `ephemeral`.
    public var authorization: String
    /// The registered categories with their actions (text input titles included).
    public var categories: [CategorySnapshot]
    /// Notification Center (grouped by thread, newest group first), the badge, pending requests
    /// and the expanded content extension's rendering.
    public var center: NotificationCenterSnapshot
    /// The `apns-id` behind each delivered notification's identifier.
    public var apnsIDs: [String: NotificationID]
    /// The Live Activities on the lock screen (active, stale, or ended and not yet dismissed), in start order; `nil`
    /// for an app that declares no activity types.
    public var activities: [ActivitySnapshot]?
    /// Each activity's lock-screen view, by activity id, for the types whose manifest has a `lockScreen` template.
    public var activityViews: [String: ActivityView]?
}

/// A registered category as a console shows it.
public struct CategorySnapshot: Sendable, Hashable, Codable {
    /// An action button.
    public struct Action: Sendable, Hashable, Codable {
        /// The identifier.
        public var identifier: String
        /// The title.
        public var title: String
        /// `foreground`, `destructive`, `authenticationRequired`.
        public var options: [String]
        /// For a text input action: the send button's title.
        public var textInputButtonTitle: String?
        /// For a text input action: the placeholder.
        public var textInputPlaceholder: String?

        init(_ action: UNNotificationAction) {
            identifier = action.identifier
            title = action.title
            options = ManifestNames.names(of: action.options, in: ManifestNames.actionOptions)
            let input = action as? UNTextInputNotificationAction
            textInputButtonTitle = input?.textInputButtonTitle
            textInputPlaceholder = input?.textInputPlaceholder
        }
    }

    /// The identifier.
    public var identifier: String
    /// The actions, in display order.
    public var actions: [Action]
    /// The category's options.
    public var options: [String]
}

extension SimulatedDevice {
    /// What every app shows now.
    public func snapshot() async -> DeviceSnapshot {
        var snapshots: [AppSnapshot] = []
        for installed in installedApps {
            guard let app = apps[installed.bundleID] else { continue }
            let categories = await app.runtime.center.notificationCategories().sorted { $0.identifier < $1.identifier }
            let center = await app.runtime.snapshot()
            let activities = app.activities.map { center in
                center.evaluate()
                return center.snapshots
            }
            snapshots.append(
                AppSnapshot(
                    bundleID: installed.bundleID,
                    name: installed.name,
                    environment: installed.environment,
                    deviceToken: installed.deviceToken.hex,
                    state: center.appState,
                    authorization: ManifestNames.name(of: center.authorizationStatus, in: ManifestNames.authorizationStatuses),
                    categories: categories.map { category in
                        CategorySnapshot(
                            identifier: category.identifier,
                            actions: category.actions.map(CategorySnapshot.Action.init),
                            options: ManifestNames.names(of: category.options, in: ManifestNames.categoryOptions)
                        )
                    },
                    center: center,
                    apnsIDs: app.apnsIDs,
                    activities: activities,
                    activityViews: activities.map { Self.views(of: $0, types: app.manifest.activities) }
                )
            )
        }
        return DeviceSnapshot(name: name, capturedAt: clock.now, apps: snapshots)
    }

    /// The lock-screen views of the activities whose type has a template.
    static func views(of activities: [ActivitySnapshot], types: [ActivityTypeManifest]) -> [String: ActivityView] {
        func object(_ text: String) -> [String: HeraldUserNotifications.JSONValue] {
            guard case .object(let members)? = try? JSONParser.parse(text.utf8) else {
                return [:]
            }
            return Dictionary(members.members.map { ($0.key, $0.value) }) { first, _ in first }
        }
        var views: [String: ActivityView] = [:]
        for activity in activities {
            guard let template = types.first(where: { $0.name == activity.typeName })?.lockScreen else { continue }
            views[activity.id] = template.render(attributes: object(activity.attributes), state: object(activity.contentState))
        }
        return views
    }
}
