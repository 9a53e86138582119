import Foundation
import HeraldCore
import HeraldStore

/// An in-memory ``DeviceRegistry`` that can be told to fail, for the test of how the link reports store
/// failures (a test double; the other tests and the product use ``SQLiteStore``).
actor LinkTestRegistry: DeviceRegistry {
    private var deviceRecords: [DeviceRecord] = []
    private var secrets: [String: String] = [:]
    private var tokenRecords: [TokenRecord] = []
    private let clock: any WallClock
    /// When set, every call fails with this error (to test how the link reports store failures).
    private var failure: StoreError?

    init(clock: any WallClock) {
        self.clock = clock
    }

    func failEverything(with error: StoreError?) {
        failure = error
    }

    func addDevice(name: String) async throws -> DeviceCredentials {
        try check()
        let device = DeviceRecord(id: UUID().uuidString.lowercased(), name: name, createdAtMilliseconds: clock.nowMilliseconds())
        let secret = DeviceToken.random().hex
        deviceRecords.append(device)
        secrets[device.id] = secret
        return DeviceCredentials(device: device, secret: secret)
    }

    func authenticateDevice(id: String, secret: String) async throws -> DeviceRecord? {
        try check()
        guard secrets[id] == secret else { return nil }
        return deviceRecords.first { $0.id == id }
    }

    func devices() async throws -> [DeviceRecord] {
        try check()
        return deviceRecords
    }

    func device(id: String) async throws -> DeviceRecord? {
        try check()
        return deviceRecords.first { $0.id == id }
    }

    func registerAppToken(deviceID: String, bundleID: String, environment: APNSEnvironment) async throws -> AppTokenRegistration {
        try check()
        guard deviceRecords.contains(where: { $0.id == deviceID }) else { throw StoreError.unknownDevice }
        if let active = try await activeToken(deviceID: deviceID, bundleID: bundleID, environment: environment) {
            return AppTokenRegistration(token: active, isNew: false)
        }
        let record = TokenRecord(
            token: .random(),
            bundleID: bundleID,
            environment: environment,
            deviceID: deviceID,
            registeredAtMilliseconds: clock.nowMilliseconds(),
            unregisteredAtMilliseconds: nil
        )
        tokenRecords.append(record)
        return AppTokenRegistration(token: record, isNew: true)
    }

    func activeToken(deviceID: String, bundleID: String, environment: APNSEnvironment) async throws -> TokenRecord? {
        try check()
        return tokenRecords.first {
            $0.deviceID == deviceID && $0.bundleID == bundleID && $0.environment == environment && $0.isActive && $0.kind == .device
        }
    }

    func registerActivityToken(_ request: ActivityTokenRequest, limit: Int) async throws -> AppTokenRegistration {
        try check()
        guard deviceRecords.contains(where: { $0.id == request.deviceID }) else { throw StoreError.unknownDevice }
        guard !tokenRecords.contains(where: { $0.token == request.token }) else { throw StoreError.duplicateDeviceToken }
        let record = TokenRecord(
            token: request.token,
            bundleID: request.bundleID,
            environment: request.environment,
            deviceID: request.deviceID,
            registeredAtMilliseconds: clock.nowMilliseconds(),
            unregisteredAtMilliseconds: nil,
            kind: request.kind,
            activityType: request.activityType
        )
        tokenRecords.append(record)
        return AppTokenRegistration(token: record, isNew: true)
    }

    func tokens(deviceID: String) async throws -> [TokenRecord] {
        try check()
        return tokenRecords.filter { $0.deviceID == deviceID }
    }

    @discardableResult
    func unregister(_ token: DeviceToken, atMilliseconds: Int64) async throws -> TokenRecord {
        try check()
        guard let index = tokenRecords.firstIndex(where: { $0.token == token }) else { throw StoreError.unknownDeviceToken }
        if tokenRecords[index].unregisteredAtMilliseconds == nil { tokenRecords[index].unregisteredAtMilliseconds = atMilliseconds }
        return tokenRecords[index]
    }

    private func check() throws {
        if let failure { throw failure }
    }
}
