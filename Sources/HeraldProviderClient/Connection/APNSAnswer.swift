import HeraldCore

/// The server's answer on one stream, as the connection collects it, before it is read as a push's answer
/// (``APNSResponse``) or a channel request's (``APNSChannelResponse``).
struct APNSAnswer: Sendable {
    /// The HTTP status.
    var status: Int
    /// `apns-id` (pushes).
    var apnsID: String?
    /// `apns-unique-id` (sandbox pushes and broadcasts).
    var uniqueID: String?
    /// `apns-request-id` (channel and broadcast requests).
    var requestID: String?
    /// `apns-channel-id` (channel requests).
    var channelID: String?
    /// `herald-fault-rule`: the Herald fault rule that made the answer (docs/faults.md).
    var faultRule: String?
    /// The body, up to the request's limit.
    var body: [UInt8]
    /// An error answer's `reason` (any status outside 200–299).
    var reason: APNSReason?
    /// An error answer's `timestamp` (with `410 Unregistered`).
    var timestamp: Int64?
    /// From the call to the end of the answer.
    var latency: Duration = .zero

    init(
        status: Int,
        apnsID: String? = nil,
        uniqueID: String? = nil,
        requestID: String? = nil,
        channelID: String? = nil,
        faultRule: String? = nil,
        body: [UInt8] = []
    ) {
        self.status = status
        self.apnsID = apnsID
        self.uniqueID = uniqueID
        self.requestID = requestID
        self.channelID = channelID
        self.faultRule = faultRule
        self.body = body
    }

    /// Whether the status is a success (200–299): only other answers have an error body to read.
    var isSuccess: Bool { (200..<300).contains(status) }

    /// Reads `reason` and `timestamp` from the body of an answer that is not a success.
    mutating func readErrorBody() {
        guard !isSuccess else { return }
        (reason, timestamp) = APNSResponse.errorBody(body)
    }
}
