import Foundation
import HeraldCore
import HeraldSimulator
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

extension Array where Element == DeviceReport {
    /// The event names, in order.
    var events: [String] { map(\.event.rawValue) }

    /// The first report of an event.
    func first(_ event: DeviceReport.Event) -> DeviceReport? { first { $0.event == event } }
}

extension DeviceReport {
    /// A string in the detail.
    func string(_ key: String) -> String? { detail[key]?.stringValue }

    /// A nested value in the detail by path (`after.title`).
    func value(_ path: String) -> HeraldUserNotifications.JSONValue? {
        var current: HeraldUserNotifications.JSONValue? = .object(detail)
        for part in path.split(separator: ".") {
            current = current?.objectValue?[String(part)]
        }
        return current
    }

    /// A list of strings in the detail.
    func strings(_ key: String) -> [String] { detail[key]?.arrayValue?.compactMap(\.stringValue) ?? [] }
}

/// Minimal but real media files.
enum Fixture {
    static let png: [UInt8] =
        [0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A, 0x00, 0x00, 0x00, 0x0D] + Array("IHDR".utf8)
        + [0x00, 0x00, 0x00, 0x01, 0x00, 0x00, 0x00, 0x01, 0x08, 0x02, 0x00, 0x00, 0x00, 0x90, 0x77, 0x53, 0xDE]
        + [0x00, 0x00, 0x00, 0x00] + Array("IEND".utf8) + [0xAE, 0x42, 0x60, 0x82]
}

/// The titles Notification Center shows for an app, thread by thread, newest first.
func shownTitles(_ device: SimulatedDevice, _ bundleID: String) async -> [String] {
    let snapshot = await device.snapshot()
    let app = snapshot.apps.first { $0.bundleID == bundleID }
    return (app?.center.threads ?? []).flatMap(\.notifications).map(\.title)
}
