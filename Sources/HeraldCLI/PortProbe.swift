import Foundation

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// Whether `herald serve` can listen on a port, asked before the server starts so that a port in use is one line
/// naming the port and its option rather than an error from deep inside the event loop.
enum PortProbe {
    /// Why binding `host:port` fails now, as the server would bind it (`SO_REUSEADDR`); `nil` when it would work
    /// or cannot be tried (the server then finds out for itself).
    static func failure(host: String, port: Int) -> (code: Int32?, text: String)? {
        guard let list = StreamAddress.lookup(host: host, port: port, passive: true) else {
            return (nil, "no such address on this machine")
        }
        let first = list
        defer { freeaddrinfo(list) }
        let descriptor = socket(first.pointee.ai_family, first.pointee.ai_socktype, first.pointee.ai_protocol)
        guard descriptor >= 0 else { return nil }
        defer { close(descriptor) }
        var one: Int32 = 1
        _ = setsockopt(descriptor, SOL_SOCKET, SO_REUSEADDR, &one, socklen_t(MemoryLayout<Int32>.size))
        guard bind(descriptor, first.pointee.ai_addr, first.pointee.ai_addrlen) != 0 else { return nil }
        let code = errno
        return (code, SystemError.text(code))
    }
}
