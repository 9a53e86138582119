/// Why ``APNSProviderClient`` has no answer for a request (an answer with an error status is not an error).
///
/// Callers match with `==` against the static members; ``detail`` says what exactly happened, for a log line or a
/// CLI message. The set of cases may grow.
public struct APNSProviderClientError: Error, Hashable, Sendable, CustomStringConvertible {
    private enum Code: String, Hashable, Sendable {
        case invalidConfiguration
        case invalidRequest
        case connectFailed
        case connectTimeout
        case responseTimeout
        case requestNotSent
        case connectionClosed
        case streamReset
        case shutDown
    }

    private let code: Code
    /// What exactly happened (an address, a library error, a GOAWAY reason); not part of equality.
    public let detail: String

    private init(_ code: Code, _ detail: String = "") {
        self.code = code
        self.detail = detail
    }

    /// The configuration cannot be used: an unreadable trust root, certificate or key, or a bad URL.
    public static let invalidConfiguration = Self(.invalidConfiguration)
    /// The request cannot be written: a token or header value with characters HTTP/2 cannot carry.
    public static let invalidRequest = Self(.invalidRequest)
    /// The connection could not be made: refused, unreachable, or the TLS handshake failed.
    public static let connectFailed = Self(.connectFailed)
    /// The connection (TCP, TLS and the server's HTTP/2 SETTINGS) was not ready within the connect timeout.
    public static let connectTimeout = Self(.connectTimeout)
    /// No complete answer within the response timeout; the server may still have accepted the notification.
    public static let responseTimeout = Self(.responseTimeout)
    /// The request never reached the server (the connection went away first); sending it again is safe.
    public static let requestNotSent = Self(.requestNotSent)
    /// The connection closed while the request was in flight; the server may or may not have accepted it.
    public static let connectionClosed = Self(.connectionClosed)
    /// The server reset the request's stream (RST_STREAM) instead of answering.
    public static let streamReset = Self(.streamReset)
    /// The client was shut down.
    public static let shutDown = Self(.shutDown)

    /// The same error with a detail.
    func with(_ detail: String) -> Self { Self(code, detail) }

    /// Errors are equal when they are the same case, whatever the detail.
    public static func == (lhs: Self, rhs: Self) -> Bool { lhs.code == rhs.code }

    /// Hashes the case only, consistent with `==`.
    public func hash(into hasher: inout Hasher) { hasher.combine(code) }

    /// A sentence for people: what happened, then the detail.
    public var description: String {
        let summary =
            switch code {
            case .invalidConfiguration: "invalid client configuration"
            case .invalidRequest: "invalid request"
            case .connectFailed: "could not connect"
            case .connectTimeout: "could not connect in time"
            case .responseTimeout: "no answer in time"
            case .requestNotSent: "the connection went away before the request was sent"
            case .connectionClosed: "the connection closed before the answer arrived"
            case .streamReset: "the server reset the stream"
            case .shutDown: "the client is shut down"
            }
        return detail.isEmpty ? summary : "\(summary): \(detail)"
    }
}
