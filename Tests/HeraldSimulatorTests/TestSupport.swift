import Foundation
import HeraldCore
import HeraldSimulator
import HeraldTestSupport
import HeraldUserNotifications
import Testing

/// Builds a device from manifest JSON, on a manual clock unless one is given.
func makeDevice(
    _ manifestJSON: String,
    clock: ManualNotificationClock = ManualNotificationClock(),
    code: InProcessCode = InProcessCode()
) async throws -> SimulatedDevice {
    try await SimulatedDevice(manifest: DeviceManifest(json: Data(manifestJSON.utf8)), clock: clock, code: code)
}

/// A notification as the delivery engine hands it over: the payload bytes exactly as a provider
/// sent them.
func push(
    _ payload: String,
    to bundleID: String,
    collapseID: String? = nil,
    pushType: PushType = .alert,
    apnsID: NotificationID = .random()
) -> IncomingNotification {
    IncomingNotification(
        apnsID: apnsID,
        bundleID: bundleID,
        collapseID: collapseID,
        pushType: pushType,
        priority: .immediate,
        payload: Array(payload.utf8)
    )
}

/// The titles Notification Center shows for an app, thread by thread, newest first.
func shownTitles(_ device: SimulatedDevice, _ bundleID: String) async -> [String] {
    let snapshot = await device.snapshot()
    let app = snapshot.apps.first { $0.bundleID == bundleID }
    return (app?.center.threads ?? []).flatMap(\.notifications).map(\.title)
}
