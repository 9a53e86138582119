import NIOCore
import NIOHPACK
import NIOHTTP2

/// The largest answer body a client keeps by default; APNs error bodies are a few dozen bytes. A request that
/// expects more (the list of an app's channels) says so when it is submitted.
let maximumResponseBodySize = 16 * 1024

/// The pure logic of one client connection: which request gets a stream when, and what each answer is.
///
/// No I/O: ``APNSClientConnectionHandler`` feeds it the frames and the time, and carries out what it returns.
/// Generic over the request so tests can drive it with plain values.
///
/// Rules it keeps:
/// - nothing is sent before the server's first SETTINGS, and never more streams than its
///   `SETTINGS_MAX_CONCURRENT_STREAMS` (APNs starts a token connection at 1 and raises it after the first valid
///   token, spec §A.1); the rest wait in order;
/// - client streams are odd and increasing (RFC 9113 §5.1.1); when they run out the connection takes no more;
/// - a GOAWAY's streams above its last stream id, a `REFUSED_STREAM` reset and everything still waiting were never
///   processed, so they fail with ``APNSProviderClientError/requestNotSent`` (RFC 9113 §6.8, §8.7).
struct APNSClientConnectionStateMachine<Request> {
    enum SubmitAction {
        /// Write the request on this new stream now.
        case open(HTTP2StreamID)
        /// It waits for a stream (or for the server's first SETTINGS).
        case queued
        /// The connection takes no more requests.
        case reject(APNSProviderClientError)
    }

    enum OpenAction {
        /// Write this waiting request on this new stream.
        case open(HTTP2StreamID, Request)
        /// Stream ids ran out: these waiting requests fail (never sent), and the connection takes no more.
        case failWaiting([Request], APNSProviderClientError)
        case none
    }

    enum ReceiveAction {
        case none
        case complete(Request, APNSAnswer)
        case fail(Request, APNSProviderClientError)
    }

    private enum State {
        case awaitingSettings
        case active
        case goingAway
        case closed
    }

    private struct Waiting {
        var id: UInt64
        var request: Request
        var deadline: NIODeadline
        var bodyLimit: Int
    }

    private struct Open {
        var id: UInt64
        var request: Request
        var deadline: NIODeadline
        var bodyLimit: Int
        var status: Int?
        var apnsID: String?
        var uniqueID: String?
        var requestID: String?
        var channelID: String?
        var faultRule: String?
        var body: [UInt8] = []

        init(_ waiting: Waiting) {
            id = waiting.id
            request = waiting.request
            deadline = waiting.deadline
            bodyLimit = waiting.bodyLimit
        }
    }

    /// The largest stream id a client may use.
    static var lastClientStreamID: Int { Int(Int32.max) }

    private var state = State.awaitingSettings
    /// The server's `SETTINGS_MAX_CONCURRENT_STREAMS`; NIO assumes 100 until the server names one.
    private(set) var streamLimit = 100
    private var nextStreamID: Int
    private var waiting = CircularBuffer<Waiting>()
    private var open: [HTTP2StreamID: Open] = [:]

    /// - Parameter firstStreamID: 1 for a new connection; tests start near the end of the range.
    init(firstStreamID: Int = 1) {
        nextStreamID = firstStreamID
    }

    /// Whether new requests are taken (not after GOAWAY, close or running out of stream ids).
    var isAcceptingRequests: Bool {
        switch state {
        case .awaitingSettings, .active: true
        case .goingAway, .closed: false
        }
    }

    /// Whether no request is open or waiting.
    var isIdle: Bool { open.isEmpty && waiting.isEmpty }

    /// Requests on streams now.
    var openCount: Int { open.count }

    /// A request from `send`, with the caller's id (for cancellation), its deadline and how much of the answer's
    /// body to keep.
    mutating func submit(_ request: Request, id: UInt64, deadline: NIODeadline, bodyLimit: Int = maximumResponseBodySize) -> SubmitAction {
        let item = Waiting(id: id, request: request, deadline: deadline, bodyLimit: bodyLimit)
        switch state {
        case .goingAway, .closed:
            return .reject(.requestNotSent.with("the connection is closing"))
        case .awaitingSettings:
            waiting.append(item)
            return .queued
        case .active:
            guard waiting.isEmpty, open.count < streamLimit else {
                waiting.append(item)
                return .queued
            }
            guard let streamID = allocateStreamID() else {
                return .reject(.requestNotSent.with("the connection has used all its stream ids"))
            }
            open[streamID] = Open(item)
            return .open(streamID)
        }
    }

    /// The next waiting request that may start now; call until it returns `.none`.
    mutating func nextToOpen() -> OpenAction {
        guard case .active = state, open.count < streamLimit, let next = waiting.first else { return .none }
        guard let streamID = allocateStreamID() else {
            let requests = waiting.map(\.request)
            waiting.removeAll()
            return .failWaiting(requests, .requestNotSent.with("the connection has used all its stream ids"))
        }
        waiting.removeFirst()
        open[streamID] = Open(next)
        return .open(streamID, next.request)
    }

    private mutating func allocateStreamID() -> HTTP2StreamID? {
        guard nextStreamID <= Self.lastClientStreamID else {
            state = .goingAway
            return nil
        }
        let streamID = HTTP2StreamID(nextStreamID)
        nextStreamID += 2
        return streamID
    }

    /// The server's SETTINGS; returns `true` for the first one, when the connection becomes ready.
    mutating func settingsReceived(maxConcurrentStreams: Int?) -> Bool {
        if let maxConcurrentStreams { streamLimit = maxConcurrentStreams }
        guard case .awaitingSettings = state else { return false }
        state = .active
        return true
    }

    /// A HEADERS frame: the answer's head (informational 1xx heads are skipped) or its trailers.
    mutating func receiveHeaders(_ headers: HPACKHeaders, endStream: Bool, streamID: HTTP2StreamID) -> ReceiveAction {
        guard var stream = open[streamID] else { return .none }
        if stream.status == nil {
            var status: Int?
            for (name, value, _) in headers {
                switch name {
                case ":status": status = Int(value)
                case "apns-id": stream.apnsID = value
                case "apns-unique-id": stream.uniqueID = value
                case "apns-request-id": stream.requestID = value
                case "apns-channel-id": stream.channelID = value
                case APNSResponse.faultRuleHeader: stream.faultRule = value
                default: break
                }
            }
            guard let status else {
                open.removeValue(forKey: streamID)
                return .fail(stream.request, .connectionClosed.with("an answer without :status"))
            }
            if (100..<200).contains(status), !endStream { return .none }
            stream.status = status
        }
        return finish(stream, streamID: streamID, endStream: endStream)
    }

    /// A DATA frame: part of the answer's body (kept up to the request's limit).
    mutating func receiveData(_ buffer: ByteBuffer, endStream: Bool, streamID: HTTP2StreamID) -> ReceiveAction {
        guard var stream = open[streamID] else { return .none }
        let room = stream.bodyLimit - stream.body.count
        if room > 0 { stream.body.append(contentsOf: buffer.readableBytesView.prefix(room)) }
        return finish(stream, streamID: streamID, endStream: endStream)
    }

    private mutating func finish(_ stream: Open, streamID: HTTP2StreamID, endStream: Bool) -> ReceiveAction {
        guard endStream else {
            open[streamID] = stream
            return .none
        }
        open.removeValue(forKey: streamID)
        guard let status = stream.status else {
            return .fail(stream.request, .connectionClosed.with("the stream ended before the answer's head"))
        }
        let answer = APNSAnswer(
            status: status,
            apnsID: stream.apnsID,
            uniqueID: stream.uniqueID,
            requestID: stream.requestID,
            channelID: stream.channelID,
            faultRule: stream.faultRule,
            body: stream.body
        )
        return .complete(stream.request, answer)
    }

    /// RST_STREAM from the server (or a stream error NIO raised): the request fails.
    mutating func receiveReset(_ code: HTTP2ErrorCode, streamID: HTTP2StreamID) -> ReceiveAction {
        // RFC 9113 §8.7: REFUSED_STREAM means the server did no processing, so the request can go again.
        if code == .refusedStream { return streamFailed(streamID, error: .requestNotSent.with("the server refused the stream")) }
        return streamFailed(streamID, error: .streamReset.with("\(code)"))
    }

    /// A stream ended without an answer (NIO found the server's frames invalid, say).
    mutating func streamFailed(_ streamID: HTTP2StreamID, error: APNSProviderClientError) -> ReceiveAction {
        guard let stream = open.removeValue(forKey: streamID) else { return .none }
        return .fail(stream.request, error)
    }

    /// GOAWAY: the connection takes no more requests; those above `lastStreamID` and those waiting fail (never
    /// processed). The rest complete as their answers arrive.
    mutating func receiveGoAway(lastStreamID: HTTP2StreamID, reason: String) -> [(Request, APNSProviderClientError)] {
        if case .closed = state {} else { state = .goingAway }
        let error = APNSProviderClientError.requestNotSent.with(reason)
        var failed: [(Request, APNSProviderClientError)] = []
        for (streamID, stream) in open where streamID > lastStreamID {
            open.removeValue(forKey: streamID)
            failed.append((stream.request, error))
        }
        failed += waiting.map { ($0.request, error) }
        waiting.removeAll()
        return failed
    }

    /// The requests whose deadline has passed, with their stream when one was open (to reset it).
    mutating func expire(now: NIODeadline) -> [(Request, HTTP2StreamID?)] {
        var expired: [(Request, HTTP2StreamID?)] = []
        for (streamID, stream) in open where stream.deadline <= now {
            open.removeValue(forKey: streamID)
            expired.append((stream.request, streamID))
        }
        if waiting.contains(where: { $0.deadline <= now }) {
            var kept = CircularBuffer<Waiting>(initialCapacity: waiting.count)
            for item in waiting {
                if item.deadline <= now { expired.append((item.request, nil)) } else { kept.append(item) }
            }
            waiting = kept
        }
        return expired
    }

    /// The caller gave up on request `id`: it is removed, with its stream when one was open (to reset it).
    mutating func cancel(id: UInt64) -> (Request, HTTP2StreamID?)? {
        if let index = waiting.firstIndex(where: { $0.id == id }) {
            return (waiting.remove(at: index).request, nil)
        }
        if let (streamID, stream) = open.first(where: { $0.value.id == id }) {
            open.removeValue(forKey: streamID)
            return (stream.request, streamID)
        }
        return nil
    }

    /// The connection closed: every request fails, those on a stream with an unknown outcome.
    mutating func connectionClosed(reason: String) -> [(Request, APNSProviderClientError)] {
        state = .closed
        var failed = open.values.map { ($0.request, APNSProviderClientError.connectionClosed.with(reason)) }
        failed += waiting.map { ($0.request, APNSProviderClientError.requestNotSent.with(reason)) }
        open.removeAll()
        waiting.removeAll()
        return failed
    }
}
