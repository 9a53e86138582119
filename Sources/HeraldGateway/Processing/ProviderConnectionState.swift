import HeraldAuth
import HeraldCore

/// The per-connection state the provider API keeps: authentication binding and the stream-limit signal.
struct ProviderConnectionState: Sendable {
    /// The authentication rules' state for this connection.
    var authentication: ConnectionAuthentication
    /// Why the connection's client certificate cannot be used at all, if it cannot.
    var certificateRejection: APNSReason?
    private var pendingStreamLimitRaise = false

    init(authentication: ConnectionAuthentication, certificateRejection: APNSReason? = nil) {
        self.authentication = authentication
        self.certificateRejection = certificateRejection
    }

    /// Whether the connection may use all its streams from the start.
    var isAuthenticated: Bool { authentication.isAuthenticated }

    /// Notes that the first valid token arrived, so the connection's stream limit goes up.
    mutating func noteFirstValidToken() {
        pendingStreamLimitRaise = true
    }

    /// Whether to send the raised stream limit now (true once per connection).
    mutating func takeStreamLimitRaise() -> Bool {
        defer { pendingStreamLimitRaise = false }
        return pendingStreamLimitRaise
    }
}
