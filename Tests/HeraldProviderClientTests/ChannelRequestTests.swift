import HeraldCore
import HeraldTestTiers
import NIOCore
import NIOHPACK
import NIOHTTP2
import Testing

@testable import HeraldProviderClient

@Suite("APNSProviderClient: channel and broadcast requests and their answers", .tier(.unit))
struct ChannelRequestTests {
    private func client() throws -> APNSProviderClient {
        try APNSProviderClient(configuration: .init(endpoint: try #require(.init(url: "http://127.0.0.1:2195")), authentication: .none))
    }

    private func fields(_ request: APNSChannelAPIRequest) throws -> [String] {
        try client().headers(for: request, authorization: "bearer x").map { "\($0.name): \($0.value)" }
    }

    private let head = [":scheme: http", ":authority: 127.0.0.1:2195", "authorization: bearer x"]

    private func expectHead(_ fields: [String], method: String, path: String, then rest: [String]) {
        #expect(fields == [":method: \(method)", head[0], ":path: \(path)", head[1], head[2]] + rest)
    }

    @Test("channel management: method, path, apns-channel-id and apns-request-id only when given; the create body")
    func management() throws {
        let create = APNSChannelAPIRequest.createChannel(bundleID: "com.example.app", storagePolicy: .noMessageStored, requestID: nil)
        expectHead(try fields(create), method: "POST", path: "/1/apps/com.example.app/channels", then: [])
        #expect(String(decoding: create.body, as: UTF8.self) == #"{"message-storage-policy":0,"push-type":"LiveActivity"}"#)
        #expect(create.responseBodyLimit == maximumResponseBodySize)

        let read = APNSChannelAPIRequest.channel("GET", bundleID: "com.example.app", channelID: "AAAA", requestID: "r")
        expectHead(try fields(read), method: "GET", path: "/1/apps/com.example.app/channels", then: ["apns-channel-id: AAAA", "apns-request-id: r"])
        #expect(read.body.isEmpty)

        let list = APNSChannelAPIRequest.allChannels(bundleID: "com.example.app", requestID: nil)
        expectHead(try fields(list), method: "GET", path: "/1/apps/com.example.app/all-channels", then: [])
        #expect(list.responseBodyLimit > 10_000 * 27)
    }

    @Test("a broadcast: Apple's headers with Apple's defaults (liveactivity, 10, 0); nil leaves one out")
    func broadcast() throws {
        let payload = Array(#"{"aps":{"event":"end","timestamp":1}}"#.utf8)
        let request = APNSChannelAPIRequest.broadcast(APNSBroadcastRequest(bundleID: "com.example.app", channelID: "AAAA", payload: payload))
        expectHead(
            try fields(request),
            method: "POST",
            path: "/4/broadcasts/apps/com.example.app",
            then: ["apns-channel-id: AAAA", "apns-push-type: liveactivity", "apns-priority: 10", "apns-expiration: 0"]
        )
        #expect(request.body == payload)
        let bare = APNSBroadcastRequest(
            bundleID: "b",
            channelID: "C",
            payload: [],
            pushType: nil,
            priority: .powerConsiderate,
            expiration: nil,
            requestID: "r"
        )
        expectHead(
            try fields(.broadcast(bare)),
            method: "POST",
            path: "/4/broadcasts/apps/b",
            then: ["apns-channel-id: C", "apns-priority: 5", "apns-request-id: r"]
        )
    }

    @Test("a bundle id that cannot be a path segment, or a value with CR or LF, is refused before sending")
    func invalid() throws {
        let client = try client()
        for bundleID in ["", "a/b", "a b", "a%2F"] {
            #expect(throws: APNSProviderClientError.invalidRequest, "\(bundleID)") {
                try client.headers(for: .allChannels(bundleID: bundleID, requestID: nil), authorization: nil)
            }
        }
        #expect(throws: APNSProviderClientError.invalidRequest) {
            try client.headers(for: .channel("GET", bundleID: "a", channelID: "x\ny", requestID: nil), authorization: nil)
        }
    }

    @Test("answers: the configuration of a read, the ids of a list, nothing from a refusal or another body")
    func answers() {
        let read = APNSChannelResponse(status: 200, body: Array(#"{"message-storage-policy": 1, "push-type": "LiveActivity"}"#.utf8))
        #expect(read.configuration == APNSChannelConfiguration(storagePolicy: .mostRecentMessageStored, pushType: "LiveActivity"))
        #expect(read.channelIDs == nil)
        let list = APNSChannelResponse(status: 200, body: Array(#"{"channels": ["b", "a"]}"#.utf8))
        #expect(list.channelIDs == ["b", "a"] && list.configuration == nil)
        #expect(APNSChannelResponse(status: 200, body: Array(#"{"channels": ["a", 1]}"#.utf8)).channelIDs == nil)
        let refused = APNSChannelResponse(status: 400, reason: .channelNotRegistered, body: Array(#"{"channels": []}"#.utf8))
        #expect(refused.channelIDs == nil && !refused.isSuccess)
        #expect(APNSChannelResponse(status: 204).isSuccess && APNSChannelResponse(status: 201).isSuccess)
    }

    @Test("the connection collects apns-request-id and apns-channel-id, and keeps each request's own body limit")
    func connectionAnswer() throws {
        var machine = APNSClientConnectionStateMachine<String>()
        _ = machine.settingsReceived(maxConcurrentStreams: 10)
        let far = NIODeadline.now() + .hours(1)
        guard case .open(let small) = machine.submit("small", id: 1, deadline: far),
            case .open(let large) = machine.submit("large", id: 2, deadline: far, bodyLimit: 100_000)
        else {
            Issue.record("not opened")
            return
        }
        let head = HPACKHeaders([(":status", "201"), ("apns-request-id", "r"), ("apns-channel-id", "c"), ("apns-unique-id", "u")])
        guard case .complete(_, let created) = machine.receiveHeaders(head, endStream: true, streamID: small) else {
            Issue.record("no answer")
            return
        }
        #expect(created.status == 201 && created.requestID == "r" && created.channelID == "c" && created.uniqueID == "u")
        #expect(created.isSuccess)

        _ = machine.receiveHeaders(HPACKHeaders([(":status", "200")]), endStream: false, streamID: large)
        let chunk = ByteBuffer(repeating: UInt8(ascii: "x"), count: 30_000)
        _ = machine.receiveData(chunk, endStream: false, streamID: large)
        guard case .complete(_, let listed) = machine.receiveData(chunk, endStream: true, streamID: large) else {
            Issue.record("no answer")
            return
        }
        #expect(listed.body.count == 60_000)
    }

    @Test("an error body is read for any status outside 200–299, and only there")
    func errorBody() {
        var refused = APNSAnswer(status: 400, body: Array(#"{"reason":"BadChannelId"}"#.utf8))
        refused.readErrorBody()
        #expect(refused.reason == .badChannelId)
        var listed = APNSAnswer(status: 200, body: Array(#"{"reason":"BadChannelId"}"#.utf8))
        listed.readErrorBody()
        #expect(listed.reason == nil)
    }
}
