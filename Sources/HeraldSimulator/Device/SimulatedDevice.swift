import Foundation
import HeraldUserNotifications

import enum HeraldCore.APNSEnvironment
import struct HeraldCore.DeviceToken
import struct HeraldCore.NotificationID

/// A device that hosts the apps of a manifest, each on its own ``DeviceRuntime``, and tells what
/// it did with each notification and each user interaction as ``DeviceReport``s — the reports a
/// device link sends back into the delivery trace.
///
/// Notifications for one app are handled one at a time, in arrival order; each `apns-id` is
/// handled once (the link delivers at least once). All timing — the 30 s extension budget, the
/// fetch budget, `delay` steps — runs on the injected clock.
public actor SimulatedDevice {
    /// The device's name.
    public nonisolated let name: String
    /// The manifest the device was built from.
    public nonisolated let manifest: DeviceManifest
    /// The device's clock.
    public nonisolated let clock: any NotificationClock
    /// The installed apps with their tokens, in manifest order (what the device registers).
    public nonisolated let installedApps: [SimulatedApp]

    var apps: [String: HostedApp]
    var recentAPNSIDs: RecentIdentifiers
    private var busyApps: Set<String> = []
    private var waiting: [String: [CheckedContinuation<Void, Never>]] = [:]

    /// Builds the device: one runtime per app, with authorization and categories set and each
    /// app brought to its manifest state (launching it as the user would).
    ///
    /// - Parameters:
    ///   - code: Swift code for manifest entries that name it (`"code": "…"`).
    ///   - attachmentsDirectory: where attachment files are kept (a subdirectory per app); a
    ///     fresh temporary directory per app when `nil`.
    ///   - deduplicationWindow: how many recent `apns-id`s are remembered to drop duplicates.
    /// - Throws: ``ManifestError`` (`codeNotSupplied`) when the manifest names code that is not supplied.
    public init(
        manifest: DeviceManifest,
        clock: any NotificationClock = SystemNotificationClock(),
        code: InProcessCode = InProcessCode(),
        attachmentsDirectory: URL? = nil,
        deduplicationWindow: Int = 10_000
    ) async throws {
        var apps: [String: HostedApp] = [:]
        var installed: [SimulatedApp] = []
        for (index, app) in manifest.apps.enumerated() {
            let hosted = try HostedApp(app, field: "apps[\(index)]", clock: clock, code: code, attachmentsDirectory: attachmentsDirectory)
            apps[app.bundleID] = hosted
            installed.append(SimulatedApp(bundleID: app.bundleID, name: app.name, environment: app.environment, deviceToken: hosted.deviceToken))
        }
        self.name = manifest.name
        self.manifest = manifest
        self.clock = clock
        self.installedApps = installed
        self.apps = apps
        self.recentAPNSIDs = RecentIdentifiers(capacity: max(1, deduplicationWindow))
        for app in manifest.apps {
            _ = await apps[app.bundleID]?.move(to: app.state)
        }
    }

    /// The runtime of an installed app, for hosts that drive it directly (the testing kit).
    public func runtime(for bundleID: String) -> DeviceRuntime? { apps[bundleID]?.runtime }

    /// Handles a notification as the device would — app state, background delivery, service
    /// extension, presentation — and returns the reports, in order: `modified`, `removed`,
    /// `displayed` or `dropped`, `background`.
    public func receive(_ notification: IncomingNotification) async -> [DeviceReport] {
        let identifier = notification.collapseID ?? notification.apnsID.text
        func drop(_ reason: DropReason, _ message: String) -> [DeviceReport] {
            [
                DeviceReport(
                    event: .dropped,
                    bundleID: notification.bundleID,
                    apnsID: notification.apnsID,
                    notificationIdentifier: identifier,
                    date: clock.now,
                    detail: ReportDetail.drop(reason, message, notification)
                )
            ]
        }
        guard recentAPNSIDs.insert(notification.deliveryKey) else {
            return drop(.duplicate, "apns-id \(notification.apnsID) was already received (a resend)")
        }
        guard let app = apps[notification.bundleID] else {
            return drop(.unknownApp, "no app \(notification.bundleID) is installed on \(name)")
        }
        if notification.pushType == .liveactivity, let center = app.activities {
            return receiveActivityPush(notification, center: center, identifier: identifier)
        }
        guard IncomingNotification.handledPushTypes.contains(notification.pushType) else {
            return drop(.unsupportedPushType, "\(notification.pushType) pushes go to a framework the simulator does not model")
        }
        guard notification.payload.count <= IncomingNotification.maximumPayloadSize,
            let payload = try? RemotePayload(json: Data(notification.payload))
        else {
            return drop(
                .invalidPayload,
                "the payload is not a JSON object with an aps dictionary of at most \(IncomingNotification.maximumPayloadSize) bytes"
            )
        }

        await acquire(notification.bundleID)
        defer { release(notification.bundleID) }
        let before = await app.runtime.center.deliveredNotifications()
        let firstEvent = await app.runtime.events.count
        let outcome = await app.runtime.receive(
            payload,
            collapseID: notification.collapseID,
            apnsID: notification.apnsID.text,
            serviceExtensionTimesOut: notification.extensionTimeout
        )
        let events = await app.runtime.events.dropFirst(firstEvent).filter { $0.notificationIdentifier == identifier }
        let after = await app.runtime.center.deliveredNotifications()
        let settings = await app.runtime.center.notificationSettings()
        let delivery = Delivery(
            notification: notification,
            identifier: identifier,
            payload: payload,
            outcome: outcome,
            events: Array(events),
            before: before,
            after: after,
            settings: settings,
            run: app.extensionRuns.take(identifier),
            date: clock.now
        )
        let reports = delivery.reports(for: app)
        for report in reports where report.event == .removed {
            if let removed = report.notificationIdentifier { apps[notification.bundleID]?.apnsIDs[removed] = nil }
        }
        if after.contains(where: { $0.request.identifier == identifier }) {
            apps[notification.bundleID]?.apnsIDs[identifier] = notification.apnsID
        }
        if outcome.held {
            apps[notification.bundleID]?.heldPush = (notification.apnsID, identifier)
        }
        return reports
    }

    /// The installed app, or an `unknownApp` error.
    func hosted(_ bundleID: String) throws -> HostedApp {
        guard let app = apps[bundleID] else { throw SimulatorError(.unknownApp, "no app \(bundleID) is installed on \(name)") }
        return app
    }

    /// Waits until no other notification of this app is being handled.
    private func acquire(_ bundleID: String) async {
        guard busyApps.contains(bundleID) else {
            busyApps.insert(bundleID)
            return
        }
        await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
            waiting[bundleID, default: []].append(continuation)
        }
    }

    /// Lets the next waiting notification of this app in (the app stays busy), or frees the app.
    private func release(_ bundleID: String) {
        if var queue = waiting[bundleID], !queue.isEmpty {
            let next = queue.removeFirst()
            waiting[bundleID] = queue.isEmpty ? nil : queue
            next.resume()
        } else {
            busyApps.remove(bundleID)
        }
    }
}

/// An installed app as the device registers it.
public struct SimulatedApp: Sendable, Hashable, Codable {
    /// The bundle id.
    public var bundleID: String
    /// The display name.
    public var name: String
    /// The APNs environment of its token.
    public var environment: APNSEnvironment
    /// Its device token.
    public var deviceToken: DeviceToken
}

/// The most recent identifiers, up to a capacity (oldest forgotten first).
struct RecentIdentifiers: Sendable {
    private var members: Set<String> = []
    private var order: [String] = []
    private var next = 0
    let capacity: Int

    init(capacity: Int) { self.capacity = capacity }

    /// Adds an identifier; false if it is already remembered.
    mutating func insert(_ identifier: String) -> Bool {
        guard !members.contains(identifier) else { return false }
        if order.count < capacity {
            order.append(identifier)
        } else {
            members.remove(order[next])
            order[next] = identifier
            next = (next + 1) % capacity
        }
        members.insert(identifier)
        return true
    }
}
