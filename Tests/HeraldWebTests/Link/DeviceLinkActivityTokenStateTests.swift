import HeraldCore
import HeraldDeviceLink
import HeraldTestTiers
import Testing

@testable import HeraldDelivery
@testable import HeraldWeb

@Suite("Device link: activity token requests in the connection state machine", .tier(.unit))
struct DeviceLinkActivityTokenStateTests {
    typealias Machine = DeviceLinkConnection.StateMachine

    static let token = DeviceToken(hex: String(repeating: "ef", count: 32))!
    static let request = DeviceLinkActivityToken(
        id: "a1",
        bundleID: "com.example.app",
        environment: .sandbox,
        kind: .activity,
        activityType: "DeliveryAttributes",
        token: token
    )

    @Test("activity-token waits for the store; the device hears the answer before the engine routes to the token; retiring tells the engine first")
    func registerAndRetire() {
        var machine = Machine(allowsEnrolment: false)
        #expect(
            machine.received(.success(.activityToken(Self.request)))
                == [.send(.error(DeviceLinkError(code: .notAuthenticated, message: "send hello first", id: "a1")))]
        )
        _ = machine.received(.success(.hello(.device(id: "d1", secret: "s"))))
        _ = machine.authenticated(deviceID: "d1", name: "phone", secret: nil, tokens: [])
        #expect(machine.received(.success(.activityToken(Self.request))) == [.registerActivityToken(Self.request, deviceID: "d1")])
        #expect(machine.isWaitingForStore)
        // A retirement sent meanwhile waits its turn.
        #expect(machine.received(.success(.retireActivityToken(id: "a2", token: Self.token))) == [])
        let registered = DeviceLinkActivityTokenReply(id: "a1", token: Self.token, isNew: true)
        #expect(
            machine.activityTokenRegistered(registered) == [
                .send(.activityTokenRegistered(registered)), .tokenRegistered(Self.token),
                .retireActivityToken(id: "a2", token: Self.token, deviceID: "d1"),
            ]
        )
        let retired = DeviceLinkActivityTokenReply(id: "a2", token: Self.token, retiredAtMilliseconds: 1234)
        #expect(
            machine.activityTokenRetired(retired) == [.tokenUnregistered(Self.token, atMilliseconds: 1234), .send(.activityTokenRetired(retired))]
        )
        #expect(!machine.isWaitingForStore)
    }
}
