import Synchronization

/// Which devices have an open, authenticated device link right now; the inspection API's `online`.
///
/// One instance is shared by the ``DeviceLinkServer`` (which updates it) and the ``InspectionAPI`` (which
/// reads it). A device may hold several connections at once; it is online while any is open.
public final class DevicePresence: Sendable {
    private let connections = Mutex<[String: Int]>([:])

    /// An empty presence: no device online.
    public init() {}

    /// Whether the device has at least one open link.
    public func isOnline(deviceID: String) -> Bool {
        connections.withLock { $0[deviceID] != nil }
    }

    /// The number of devices online.
    public var onlineCount: Int { connections.withLock { $0.count } }

    func connected(_ deviceID: String) {
        connections.withLock { $0[deviceID, default: 0] += 1 }
    }

    func disconnected(_ deviceID: String) {
        connections.withLock { table in
            guard let count = table[deviceID] else { return }
            table[deviceID] = count > 1 ? count - 1 : nil
        }
    }
}
