import HeraldTestTiers
import NIOCore
import NIOHPACK
import NIOHTTP2
import Testing

@testable import HeraldProviderClient

@Suite("APNSClientConnectionStateMachine: streams, answers, GOAWAY and deadlines", .tier(.unit))
struct ConnectionStateMachineTests {
    typealias Machine = APNSClientConnectionStateMachine<String>

    let far = NIODeadline.now() + .hours(1)

    private func opened(_ action: Machine.SubmitAction) -> HTTP2StreamID? {
        if case .open(let streamID) = action { return streamID }
        return nil
    }

    private func queued(_ action: Machine.SubmitAction) -> Bool {
        if case .queued = action { return true }
        return false
    }

    private func drainOpenable(_ machine: inout Machine) -> [(HTTP2StreamID, String)] {
        var opened: [(HTTP2StreamID, String)] = []
        while case .open(let streamID, let request) = machine.nextToOpen() { opened.append((streamID, request)) }
        return opened
    }

    private func head(_ status: String, apnsID: String? = nil) -> HPACKHeaders {
        var headers = HPACKHeaders([(":status", status)])
        if let apnsID { headers.add(name: "apns-id", value: apnsID) }
        return headers
    }

    @Test("nothing goes out before the server's SETTINGS; then at most its stream limit, in order, on odd stream ids")
    func streamLimit() {
        var machine = Machine()
        let submitA = machine.submit("a", id: 1, deadline: far)
        #expect(queued(submitA))
        let submitB = machine.submit("b", id: 2, deadline: far)
        #expect(queued(submitB))
        #expect(drainOpenable(&machine).isEmpty)

        let firstSettings = machine.settingsReceived(maxConcurrentStreams: 1)
        #expect(firstSettings)
        let first = drainOpenable(&machine)
        #expect(first.map(\.1) == ["a"] && first.map(\.0) == [HTTP2StreamID(1)])
        let submitC = machine.submit("c", id: 3, deadline: far)
        #expect(queued(submitC))

        // The first answer and the raised limit (APNs raises it after the first valid token).
        let laterSettings = machine.settingsReceived(maxConcurrentStreams: 1000)
        #expect(!laterSettings)
        let rest = drainOpenable(&machine)
        #expect(rest.map(\.1) == ["b", "c"])
        #expect(rest.map(\.0) == [HTTP2StreamID(3), HTTP2StreamID(5)])
        let submitD = machine.submit("d", id: 4, deadline: far)
        #expect(opened(submitD) == HTTP2StreamID(7))
        #expect(machine.openCount == 4)
    }

    @Test("a 200 ends with its HEADERS; an error answer's body follows in DATA")
    func answers() throws {
        var machine = Machine()
        _ = machine.settingsReceived(maxConcurrentStreams: 10)
        let ok = try #require(opened(machine.submit("ok", id: 1, deadline: far)))
        let bad = try #require(opened(machine.submit("bad", id: 2, deadline: far)))

        guard case .complete("ok", let answer) = machine.receiveHeaders(head("200", apnsID: "A"), endStream: true, streamID: ok) else {
            Issue.record("no answer")
            return
        }
        #expect(answer.status == 200 && answer.apnsID == "A" && answer.body.isEmpty)

        guard case .none = machine.receiveHeaders(head("100"), endStream: false, streamID: bad) else {
            Issue.record("a 1xx head is not the answer")
            return
        }
        guard case .none = machine.receiveHeaders(head("400", apnsID: "B"), endStream: false, streamID: bad) else {
            Issue.record("the body is still to come")
            return
        }
        let body = ByteBuffer(string: #"{"reason":"BadDeviceToken"}"#)
        guard case .complete("bad", let error) = machine.receiveData(body, endStream: true, streamID: bad) else {
            Issue.record("no answer")
            return
        }
        #expect(error.status == 400 && error.apnsID == "B")
        #expect(APNSResponse.errorBody(error.body).reason == .badDeviceToken)
        #expect(machine.isIdle)
    }

    @Test("a body is kept up to the limit")
    func bodyLimit() throws {
        var machine = Machine()
        _ = machine.settingsReceived(maxConcurrentStreams: 10)
        let stream = try #require(opened(machine.submit("big", id: 1, deadline: far)))
        _ = machine.receiveHeaders(head("400"), endStream: false, streamID: stream)
        let chunk = ByteBuffer(repeating: UInt8(ascii: "x"), count: 10_000)
        _ = machine.receiveData(chunk, endStream: false, streamID: stream)
        guard case .complete(_, let answer) = machine.receiveData(chunk, endStream: true, streamID: stream) else {
            Issue.record("no answer")
            return
        }
        #expect(answer.body.count == maximumResponseBodySize)
    }

    @Test("GOAWAY: streams above the last id and waiting requests fail as never sent; the rest still get answers")
    func goAway() throws {
        var machine = Machine()
        _ = machine.settingsReceived(maxConcurrentStreams: 2)
        let first = try #require(opened(machine.submit("a", id: 1, deadline: far)))
        _ = try #require(opened(machine.submit("b", id: 2, deadline: far)))
        let submitC = machine.submit("c", id: 3, deadline: far)
        #expect(queued(submitC))

        let failed = machine.receiveGoAway(lastStreamID: first, reason: "GOAWAY Shutdown")
        #expect(Set(failed.map(\.0)) == ["b", "c"])
        #expect(failed.allSatisfy { $0.1 == .requestNotSent && $0.1.detail == "GOAWAY Shutdown" })
        #expect(!machine.isAcceptingRequests)
        guard case .reject(let error) = machine.submit("d", id: 4, deadline: far) else {
            Issue.record("a closing connection takes no requests")
            return
        }
        #expect(error == .requestNotSent)
        guard case .complete("a", _) = machine.receiveHeaders(head("200"), endStream: true, streamID: first) else {
            Issue.record("the processed stream still completes")
            return
        }
        #expect(machine.isIdle)
    }

    @Test("RST_STREAM: REFUSED_STREAM can be sent again, other codes cannot")
    func resets() throws {
        var machine = Machine()
        _ = machine.settingsReceived(maxConcurrentStreams: 10)
        let refused = try #require(opened(machine.submit("a", id: 1, deadline: far)))
        let cancelled = try #require(opened(machine.submit("b", id: 2, deadline: far)))
        guard case .fail("a", let first) = machine.receiveReset(.refusedStream, streamID: refused),
            case .fail("b", let second) = machine.receiveReset(.cancel, streamID: cancelled)
        else {
            Issue.record("resets fail their requests")
            return
        }
        #expect(first == .requestNotSent)
        #expect(second == .streamReset)
    }

    @Test("deadlines expire waiting and open requests alike; cancellation finds either")
    func deadlinesAndCancellation() throws {
        var machine = Machine()
        let now = NIODeadline.now()
        _ = machine.settingsReceived(maxConcurrentStreams: 1)
        let open = try #require(opened(machine.submit("open", id: 1, deadline: now + .seconds(1))))
        let submitWaiting = machine.submit("waiting", id: 2, deadline: now + .seconds(1))
        #expect(queued(submitWaiting))
        let submitLater = machine.submit("later", id: 3, deadline: now + .seconds(10))
        #expect(queued(submitLater))
        let submitCancelled = machine.submit("cancelled", id: 4, deadline: now + .seconds(10))
        #expect(queued(submitCancelled))

        let expiredEarly = machine.expire(now: now)
        #expect(expiredEarly.isEmpty)
        let expired = machine.expire(now: now + .seconds(1))
        #expect(expired.map(\.0).sorted() == ["open", "waiting"])
        #expect(expired.first { $0.0 == "open" }?.1 == open)
        #expect(expired.first { $0.0 == "waiting" }?.1 == nil)

        let cancelled4 = machine.cancel(id: 4)
        #expect(cancelled4?.0 == "cancelled")
        let cancelledAgain = machine.cancel(id: 4)
        #expect(cancelledAgain == nil)
        let next = drainOpenable(&machine)
        #expect(next.map(\.1) == ["later"])
        let cancelled = machine.cancel(id: 3)
        #expect(cancelled?.1 == next.first?.0)
        #expect(machine.isIdle)
    }

    @Test("a closed connection fails what was in flight (outcome unknown) and what waited (never sent)")
    func closed() throws {
        var machine = Machine()
        _ = machine.settingsReceived(maxConcurrentStreams: 1)
        _ = try #require(opened(machine.submit("a", id: 1, deadline: far)))
        let submitB = machine.submit("b", id: 2, deadline: far)
        #expect(queued(submitB))
        let failed = machine.connectionClosed(reason: "the connection closed")
        #expect(failed.first { $0.0 == "a" }?.1 == .connectionClosed)
        #expect(failed.first { $0.0 == "b" }?.1 == .requestNotSent)
        #expect(!machine.isAcceptingRequests && machine.isIdle)
    }

    @Test("when client stream ids run out the connection takes no more requests")
    func streamIDsRunOut() throws {
        var machine = Machine(firstStreamID: Machine.lastClientStreamID)
        _ = machine.settingsReceived(maxConcurrentStreams: 1)
        let last = try #require(opened(machine.submit("last", id: 1, deadline: far)))
        #expect(last == HTTP2StreamID(Int(Int32.max)))
        let submitWaiting = machine.submit("waiting", id: 2, deadline: far)
        #expect(queued(submitWaiting))
        _ = machine.receiveHeaders(head("200"), endStream: true, streamID: last)
        guard case .failWaiting(let requests, let error) = machine.nextToOpen() else {
            Issue.record("the waiting request cannot get a stream")
            return
        }
        #expect(requests == ["waiting"] && error == .requestNotSent)
        #expect(!machine.isAcceptingRequests)
    }
}
