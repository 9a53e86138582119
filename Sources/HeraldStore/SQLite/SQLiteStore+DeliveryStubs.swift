// TEMPORARY skeleton (branch delivery-skeleton only): replaced by the real implementation before merging to main.
import HeraldCore

extension SQLiteStore {
    public func pendingNotifications() async throws -> [StoredNotification] { fatalError("skeleton") }
    public func record(_ changes: [DeliveryChange]) async throws { fatalError("skeleton") }
    public func addDevice(name: String) async throws -> DeviceCredentials { fatalError("skeleton") }
    public func authenticateDevice(id: String, secret: String) async throws -> DeviceRecord? { fatalError("skeleton") }
    public func devices() async throws -> [DeviceRecord] { fatalError("skeleton") }
    public func device(id: String) async throws -> DeviceRecord? { fatalError("skeleton") }
    public func registerAppToken(deviceID: String, bundleID: String, environment: APNSEnvironment) async throws -> AppTokenRegistration {
        fatalError("skeleton")
    }
    public func activeToken(deviceID: String, bundleID: String, environment: APNSEnvironment) async throws -> TokenRecord? {
        fatalError("skeleton")
    }
    public func tokens(deviceID: String) async throws -> [TokenRecord] { fatalError("skeleton") }
    public func listNotifications(deviceID: String, limit: Int) async throws -> [StoredNotification] { fatalError("skeleton") }
}
