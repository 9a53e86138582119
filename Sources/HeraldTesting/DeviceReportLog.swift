import HeraldDeviceHost
import HeraldSimulator
import Synchronization

/// Every report a test device made, in order: what it did with each notification and each interaction.
final class DeviceReportLog: Sendable {
    private let reports = Mutex<[DeviceReport]>([])

    /// Records the reports among a linked device's events.
    func record(_ event: LinkedDeviceEvent) {
        if case .report(let report) = event {
            reports.withLock { $0.append(report) }
        }
    }

    /// The reports so far, oldest first.
    var all: [DeviceReport] { reports.withLock { $0 } }
}
