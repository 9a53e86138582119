import Foundation
import HeraldCore
import HeraldDeviceLink
import HeraldSimulator

extension IncomingNotification {
    /// The notification as the device link delivered it.
    public init(_ notification: DeviceLinkNotification) {
        self.init(
            apnsID: notification.apnsID,
            bundleID: notification.bundleID,
            collapseID: notification.collapseID,
            pushType: notification.pushType,
            priority: notification.priority,
            payload: notification.payload,
            acceptedAtMilliseconds: notification.acceptedAtMilliseconds,
            extensionTimeout: notification.extensionTimeout,
            token: notification.token
        )
    }
}

extension DeviceLinkReport {
    /// The link's form of a simulated device's report; `nil` for a report about no notification in particular.
    public init?(_ report: HeraldSimulator.DeviceReport) {
        guard let apnsID = report.apnsID else { return nil }
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
        var detail = report.detail
        if let identifier = report.notificationIdentifier { detail["identifier"] = .string(identifier) }
        let bytes = (try? encoder.encode(detail)).map(Array.init)
        self.init(
            apnsID: apnsID,
            event: DeviceLinkReportEvent(rawValue: report.event.rawValue),
            detail: bytes
        )
    }
}
