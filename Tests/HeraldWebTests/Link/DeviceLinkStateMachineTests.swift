import HeraldCore
import HeraldDeviceLink
import HeraldTestTiers
import Testing

@testable import HeraldDelivery
@testable import HeraldWeb

@Suite("Device link: connection state machine", .tier(.unit))
struct DeviceLinkStateMachineTests {
    typealias Machine = DeviceLinkConnection.StateMachine

    static let token = DeviceToken(hex: String(repeating: "cd", count: 32))!
    static let apnsID = NotificationID("8f0e2c2a-1b4e-4d2a-9c53-2f1a0f6b7e01")!
    static let app = DeviceLinkAppRequest(id: "r1", bundleID: "com.example.app", environment: .sandbox)

    private func authenticatedMachine(tokens: [DeviceToken] = []) -> Machine {
        var machine = Machine(allowsEnrolment: false)
        _ = machine.received(.success(.hello(.device(id: "d1", secret: "s"))))
        _ = machine.authenticated(deviceID: "d1", name: "phone", secret: nil, tokens: tokens)
        return machine
    }

    @Test("hello checks the store, then welcome, then the engine hears of the session")
    func hello() {
        var machine = Machine(allowsEnrolment: false)
        #expect(machine.received(.success(.hello(.device(id: "d1", secret: "s")))) == [.authenticate(deviceID: "d1", secret: "s")])
        #expect(machine.isWaitingForStore)
        #expect(
            machine.authenticated(deviceID: "d1", name: "phone", secret: nil, tokens: [Self.token]) == [
                .send(.welcome(DeviceLinkWelcome(deviceID: "d1", name: "phone"))),
                .openSession(deviceID: "d1", tokens: [Self.token]),
            ]
        )
        #expect(machine.state == .authenticated(deviceID: "d1"))
        #expect(!machine.isWaitingForStore)
    }

    @Test("a wrong secret is unauthorized and closes; frames queued behind it are dropped")
    func unauthorized() {
        var machine = Machine(allowsEnrolment: false)
        _ = machine.received(.success(.hello(.device(id: "d1", secret: "wrong"))))
        #expect(machine.received(.success(.register(Self.app))) == [])
        let actions = machine.authenticationFailed()
        #expect(actions.count == 1)
        guard case .sendAndClose(.error(let error)) = actions.first else {
            Issue.record("expected an error and a close")
            return
        }
        #expect(error.code == .unauthorized)
        #expect(machine.state == .closed)
        #expect(machine.received(.success(.ack(apnsID: Self.apnsID))) == [])
        #expect(machine.closed() == [])
    }

    @Test("a device a fault rule keeps offline gets device-offline and the close; no session opens")
    func heldOffline() {
        var machine = Machine(allowsEnrolment: false)
        _ = machine.received(.success(.hello(.device(id: "d1", secret: "s"))))
        #expect(machine.received(.success(.register(Self.app))) == [])
        let error = DeviceLinkError(code: .deviceOffline, message: "later", retryAfterMilliseconds: 500)
        #expect(machine.heldOffline(error) == [.refuseAndClose(error)])
        #expect(machine.state == .closed)
        #expect(machine.closed() == [])
    }

    @Test("before hello every other frame is not-authenticated, with its ids; the connection stays")
    func beforeHello() {
        var machine = Machine(allowsEnrolment: false)
        let register = machine.received(.success(.register(Self.app)))
        #expect(register == [.send(.error(DeviceLinkError(code: .notAuthenticated, message: "send hello first", id: "r1")))])
        let ack = machine.received(.success(.ack(apnsID: Self.apnsID)))
        #expect(ack == [.send(.error(DeviceLinkError(code: .notAuthenticated, message: "send hello first", apnsID: Self.apnsID.text)))])
        #expect(machine.state == .awaitingHello)
        #expect(machine.received(.success(.hello(.device(id: "d1", secret: "s")))) == [.authenticate(deviceID: "d1", secret: "s")])
    }

    @Test("enrolment is refused unless allowed")
    func enrolment() {
        var closed = Machine(allowsEnrolment: false)
        let refused = closed.received(.success(.hello(.enrol(name: "new"))))
        guard case .send(.error(let error)) = refused.first else {
            Issue.record("expected an error")
            return
        }
        #expect(error.code == .enrolmentDisabled)
        #expect(closed.state == .awaitingHello)

        var open = Machine(allowsEnrolment: true)
        #expect(open.received(.success(.hello(.enrol(name: "new")))) == [.enrol(name: "new")])
        let welcome = open.authenticated(deviceID: "d9", name: "new", secret: "s9", tokens: [])
        #expect(welcome.first == .send(.welcome(DeviceLinkWelcome(deviceID: "d9", name: "new", secret: "s9"))))
    }

    @Test("a second hello is already-authenticated")
    func secondHello() {
        var machine = authenticatedMachine()
        guard case .send(.error(let error)) = machine.received(.success(.hello(.device(id: "d1", secret: "s")))).first else {
            Issue.record("expected an error")
            return
        }
        #expect(error.code == .alreadyAuthenticated)
    }

    @Test("frames wait while the store works, and are handled in order afterwards")
    func ordering() {
        var machine = authenticatedMachine()
        #expect(machine.received(.success(.register(Self.app))) == [.register(Self.app, deviceID: "d1")])
        let unregister = DeviceLinkAppRequest(id: "r2", bundleID: "com.example.app", environment: .sandbox)
        #expect(machine.received(.success(.unregister(unregister))) == [])
        #expect(machine.received(.success(.ack(apnsID: Self.apnsID))) == [])
        let registration = DeviceLinkRegistration(id: "r1", bundleID: "com.example.app", environment: .sandbox, token: Self.token, isNew: true)
        #expect(
            machine.registered(registration) == [
                .send(.registered(registration)),
                .tokenRegistered(Self.token),
                .unregister(unregister, deviceID: "d1"),
            ]
        )
        let unregistration = DeviceLinkUnregistration(
            id: "r2",
            bundleID: "com.example.app",
            environment: .sandbox,
            token: Self.token,
            unregisteredAtMilliseconds: 7
        )
        #expect(
            machine.unregistered(unregistration) == [
                .tokenUnregistered(Self.token, atMilliseconds: 7),
                .send(.unregistered(unregistration)),
                .acknowledge(Self.apnsID),
            ]
        )
    }

    @Test("malformed frames get their error in turn and change nothing")
    func malformedInOrder() {
        var machine = authenticatedMachine()
        let error = DeviceLinkError(code: .malformedFrame, message: "bad")
        #expect(machine.received(.failure(error)) == [.send(.error(error))])
        #expect(machine.received(.success(.register(Self.app))) == [.register(Self.app, deviceID: "d1")])
        #expect(machine.received(.failure(error)) == [])
        #expect(machine.requestFailed(DeviceLinkError(code: .internal, message: "disk", id: "r1")).count == 2)
        #expect(machine.state == .authenticated(deviceID: "d1"))
    }

    @Test("a failed store check leaves the connection able to say hello again")
    func storeFailureDuringHello() {
        var machine = Machine(allowsEnrolment: false)
        _ = machine.received(.success(.hello(.device(id: "d1", secret: "s"))))
        let actions = machine.requestFailed(DeviceLinkError(code: .internal, message: "disk"))
        #expect(actions.count == 1)
        #expect(machine.state == .awaitingHello)
    }

    @Test("acks go to the engine; a report once the store says the notification is the device's; closing ends the session once")
    func engineInputs() {
        var machine = authenticatedMachine()
        #expect(machine.received(.success(.ack(apnsID: Self.apnsID))) == [.acknowledge(Self.apnsID)])
        let report = DeviceLinkReport(apnsID: Self.apnsID, event: .displayed, detail: Array("{}".utf8))
        #expect(machine.received(.success(.report(report))) == [.checkReport(report, deviceID: "d1")])
        // Frames wait behind the check, as behind any store request.
        #expect(machine.received(.success(.ack(apnsID: Self.apnsID))) == [])
        #expect(machine.reportChecked(report) == [.report(report, deviceID: "d1"), .acknowledge(Self.apnsID)])
        #expect(machine.received(.success(.report(report))) == [.checkReport(report, deviceID: "d1")])
        let refusal = DeviceLinkError(code: .unknownNotification, message: "not yours", apnsID: Self.apnsID.text)
        #expect(machine.requestFailed(refusal) == [.send(.error(refusal))])
        #expect(machine.closed() == [.closeSession])
        #expect(machine.closed() == [])
    }

    @Test("before hello a frame that does not read is not-authenticated too, keeping its ids and saying what was wrong")
    func failureBeforeHello() {
        var machine = Machine(allowsEnrolment: false)
        let malformed = DeviceLinkError(code: .malformedFrame, message: "the frame is not valid JSON", id: "r1")
        let unknown = DeviceLinkError(code: .unknownType, message: "unknown frame type \"marker\"")
        for error in [malformed, unknown, DeviceLinkError(code: .frameTooLarge, message: "too large")] {
            guard case .send(.error(let refusal)) = machine.received(.failure(error)).first else {
                Issue.record("expected an error for \(error.code)")
                return
            }
            #expect(refusal.code == .notAuthenticated)
            #expect(refusal.id == error.id)
            #expect(refusal.message.contains(error.message))
        }
        #expect(machine.state == .awaitingHello)
        // After hello a frame that does not read gets its own error.
        var authenticated = authenticatedMachine()
        #expect(authenticated.received(.failure(unknown)) == [.send(.error(unknown))])
    }

    @Test("a report's trace detail names the reporting device, keeps the device's members as sent, and drops its own device")
    func reportTraceDetail() {
        #expect(DeviceLinkConnection.traceDetail(nil, deviceID: "d1") == #"{"device":"d1"}"#)
        #expect(DeviceLinkConnection.traceDetail(Array(" { } ".utf8), deviceID: "d1") == #"{"device":"d1"}"#)
        let detail = #"{"device":"d2", "body" : "Hi \"there\"","n":[1,{"device":"x"}],"d\u0065vice":"d3"}"#
        #expect(
            DeviceLinkConnection.traceDetail(Array(detail.utf8), deviceID: #"d"1"#)
                == #"{"device":"d\"1","body" : "Hi \"there\"","n":[1,{"device":"x"}]}"#
        )
    }

    @Test("no hello in time closes an unauthenticated connection, and only that")
    func helloTimeout() {
        var waiting = Machine(allowsEnrolment: false)
        guard case .sendAndClose(.error(let error)) = waiting.helloTimedOut().first else {
            Issue.record("expected an error and a close")
            return
        }
        #expect(error.code == .notAuthenticated)
        var machine = authenticatedMachine()
        #expect(machine.helloTimedOut() == [])
    }

    @Test("a result arriving after the close does nothing")
    func lateResult() {
        var machine = Machine(allowsEnrolment: false)
        _ = machine.received(.success(.hello(.device(id: "d1", secret: "s"))))
        #expect(machine.closed() == [])
        #expect(machine.authenticated(deviceID: "d1", name: "phone", secret: nil, tokens: []) == [])
    }
}
