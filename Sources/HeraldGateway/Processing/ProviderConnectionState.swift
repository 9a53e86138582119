import HeraldAuth
import HeraldCore

/// The per-connection state the provider API keeps: authentication binding and the stream-limit signal.
struct ProviderConnectionState: Sendable {
    /// The authentication rules' state for this connection.
    var authentication: ConnectionAuthentication
    /// Why the connection's client certificate cannot be used at all, if it cannot.
    var certificateRejection: APNSReason?
    /// Whether the connection came over TLS: the scheme of the origin a web push was sent to (its VAPID `aud`).
    var isTLS: Bool
    /// Whether a web push with valid VAPID credentials came on this connection (its stream limit was raised then).
    var sentValidWebPush = false
    private var pendingStreamLimitRaise = false

    init(authentication: ConnectionAuthentication, certificateRejection: APNSReason? = nil, isTLS: Bool = false) {
        self.authentication = authentication
        self.certificateRejection = certificateRejection
        self.isTLS = isTLS
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
