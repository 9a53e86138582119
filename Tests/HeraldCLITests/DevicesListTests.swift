import HeraldCore
import HeraldStore
import HeraldTestTiers
import Testing

@testable import HeraldCLI

/// `herald devices list`'s lines: one per active token with its kind, each app's device token first.
@Suite("herald devices list: tokens by kind", .tier(.unit))
struct DevicesListTests {
    static func token(_ byte: String, _ bundleID: String, _ kind: TokenKind, type: String? = nil, retired: Bool = false) throws -> TokenRecord {
        TokenRecord(
            token: try #require(DeviceToken(hex: String(repeating: byte, count: 32))),
            bundleID: bundleID,
            environment: .sandbox,
            deviceID: "d",
            registeredAtMilliseconds: 1,
            unregisteredAtMilliseconds: retired ? 2 : nil,
            kind: kind,
            activityType: type
        )
    }

    @Test("the device token first whatever the order of registration, then push-to-start, then activities; retired tokens left out")
    func order() throws {
        let tokens = [
            try Self.token("a1", "com.example.delivery", .activity, type: "DeliveryAttributes"),
            try Self.token("b2", "com.example.delivery", .pushToStart, type: "DeliveryAttributes"),
            try Self.token("c3", "com.example.delivery", .device, retired: true),
            try Self.token("d4", "com.example.delivery", .device),
            try Self.token("e5", "com.example.app", .device, retired: true),
        ]
        let hex = { (byte: String) in String(repeating: byte, count: 32) }
        #expect(
            DevicesCommand.List.appLines(tokens) == [
                "com.example.delivery  sandbox  \(hex("d4"))  device",
                "com.example.delivery  sandbox  \(hex("b2"))  push-to-start  DeliveryAttributes",
                "com.example.delivery  sandbox  \(hex("a1"))  activity  DeliveryAttributes",
                "com.example.app  sandbox  no active token  (1 issued)",
            ]
        )
    }
}
