/// Why a ``DeviceLinkClient`` could not connect, or a request got no answer.
///
/// A refusal from the server is not one of these: it is thrown as the server's ``DeviceLinkError``.
/// Match against the static values (`error == .timedOut`); ``detail`` is not part of equality.
public struct DeviceLinkClientError: Error, Hashable, Sendable, CustomStringConvertible {
    private enum Code: Hashable, Sendable {
        case upgradeRefused
        case connectionClosed
        case timedOut
        case unexpectedReply
        case replaced
    }

    private let code: Code

    /// What went wrong in words.
    public let detail: String?

    private init(_ code: Code, detail: String? = nil) {
        self.code = code
        self.detail = detail
    }

    /// The server answered the WebSocket upgrade request with something other than `101` (e.g. a wrong path).
    public static let upgradeRefused = Self(.upgradeRefused)
    /// The connection closed before the answer came.
    public static let connectionClosed = Self(.connectionClosed)
    /// No answer within the configured deadline.
    public static let timedOut = Self(.timedOut)
    /// The server answered with a frame of another type than the request expects.
    public static let unexpectedReply = Self(.unexpectedReply)
    /// The server closed the link with ``DeviceLinkClosure/replacedCode``: the device said `hello` on a newer link.
    /// Do not reconnect on your own: that would replace the newer link in turn.
    public static let replaced = Self(.replaced)

    /// The same kind of error with a message.
    public func with(detail: String) -> Self { Self(code, detail: detail) }

    /// Whether two errors are of the same kind.
    public static func == (lhs: Self, rhs: Self) -> Bool { lhs.code == rhs.code }

    /// Hashes the kind only, as `==` compares it.
    public func hash(into hasher: inout Hasher) { hasher.combine(code) }

    /// The kind in words, then the detail.
    public var description: String {
        let name: String
        switch code {
        case .upgradeRefused: name = "the server refused the WebSocket upgrade"
        case .connectionClosed: name = "the device link closed"
        case .timedOut: name = "no answer from the server in time"
        case .unexpectedReply: name = "unexpected reply from the server"
        case .replaced: name = "a newer link of the device replaced this one"
        }
        guard let detail else { return name }
        return "\(name): \(detail)"
    }
}

/// How a device link ended.
public struct DeviceLinkClosure: Sendable, Hashable {
    /// The WebSocket status code the server sent in its close frame (1000 normal, 1001 going away, 1008 policy
    /// violation after `unauthorized`, 1013 after `device-offline`, ``replacedCode``), or `nil` when the connection
    /// ended without one.
    public var code: Int?
    /// The close frame's reason, when it had one.
    public var reason: String?

    /// The code of a link closed because the device said `hello` on a newer one (docs/device-link.md, "hello").
    public static let replacedCode = 4000

    /// Creates a closure.
    public init(code: Int?, reason: String?) {
        self.code = code
        self.reason = reason
    }
}
