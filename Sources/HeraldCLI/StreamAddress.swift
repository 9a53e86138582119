#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// `getaddrinfo` for a TCP address with a numeric port, for the CLI's plain-socket checks (``PortProbe``,
/// ``HealthProbe``).
enum StreamAddress {
    /// The addresses of `host:port` (`passive`: to bind, not to connect), or `nil` when there are none; the caller
    /// frees the list with `freeaddrinfo`.
    static func lookup(host: String, port: Int, passive: Bool) -> UnsafeMutablePointer<addrinfo>? {
        var hints = addrinfo()
        hints.ai_flags = (passive ? AI_PASSIVE : 0) | AI_NUMERICSERV
        #if canImport(Glibc)
        hints.ai_socktype = Int32(SOCK_STREAM.rawValue)
        #else
        hints.ai_socktype = SOCK_STREAM
        #endif
        var list: UnsafeMutablePointer<addrinfo>?
        guard getaddrinfo(host, String(port), &hints, &list) == 0 else { return nil }
        return list
    }
}
