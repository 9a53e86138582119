import HeraldCore

/// The server's answer to a ``ProviderRawRequest``: whatever its status, an answer, not an error.
public struct ProviderRawResponse: Sendable, Hashable {
    /// The HTTP status.
    public var status: Int
    /// `apns-id`, when the server sent one (Herald does on pushes of either kind).
    public var apnsID: String?
    /// The JSON body's `reason` on an answer outside 200–299, when it has one.
    public var reason: APNSReason?
    /// The body, at most 16 KiB.
    public var body: [UInt8]
    /// From the call to the end of the answer, including any wait for a free stream.
    public var latency: Duration

    /// Creates a response (for tests and doubles; the client makes them from the wire).
    public init(status: Int, apnsID: String? = nil, reason: APNSReason? = nil, body: [UInt8] = [], latency: Duration = .zero) {
        self.status = status
        self.apnsID = apnsID
        self.reason = reason
        self.body = body
        self.latency = latency
    }

    /// Whether the status is a success, 200–299 (a web push is accepted with `201 Created`).
    public var isSuccess: Bool { (200..<300).contains(status) }
}

extension ProviderRawResponse {
    /// The answer as the connection collected it.
    init(_ answer: APNSAnswer) {
        self.init(status: answer.status, apnsID: answer.apnsID, reason: answer.reason, body: answer.body, latency: answer.latency)
    }
}
