import HeraldAuth

/// The provider token a client puts in `authorization`, signed once and reused until it is due (spec §A.7).
///
/// Why reuse: APNs refuses a connection's new token within 20 minutes of the previous one
/// (`TooManyProviderTokenUpdates`) and an hour-old one (`ExpiredProviderToken`); signing per request would hit the
/// first rule. The time comes from the caller's clock, so tests drive it.
struct SignedTokenCache: Sendable {
    /// Apple's lower bound between two new tokens.
    static let minimumAge: Int64 = 20 * 60

    private let key: PrivateSigningKey
    private let refreshAge: Int64
    private var current: (header: String, issuedAt: Int64)?
    private var renewalRequested = false

    /// - Parameter refreshAge: seconds after which a token is replaced, 20–60 minutes.
    init(key: PrivateSigningKey, refreshAge: Int64) {
        self.key = key
        self.refreshAge = refreshAge
    }

    /// The `authorization` value (`bearer <JWT>`) to send at `now` (seconds since the UNIX epoch), signing a new
    /// token when none is current, the current one is `refreshAge` old, or a renewal was asked for and it is at
    /// least 20 minutes old.
    mutating func authorization(now: Int64) -> String {
        if let current {
            let age = now - current.issuedAt
            // A clock that stepped back (age < 0) keeps the token: the server judges it by its own clock.
            let due = age >= refreshAge || (renewalRequested && age >= Self.minimumAge)
            if !due { return current.header }
        }
        let header = "bearer " + key.makeToken(issuedAt: now)
        current = (header, now)
        renewalRequested = false
        return header
    }

    /// The server answered `ExpiredProviderToken` for a token sent with this header: replace it as soon as Apple
    /// allows. An answer for an older token (a renewal already happened) changes nothing.
    mutating func tokenExpired(header: String) {
        if current?.header == header { renewalRequested = true }
    }

    /// When the current token was issued, if there is one.
    var issuedAt: Int64? { current?.issuedAt }
}
