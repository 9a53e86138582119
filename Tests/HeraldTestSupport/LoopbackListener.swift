import Foundation

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// A listening TCP socket on 127.0.0.1, for the test servers of this kit (``LocalHTTPServer``,
/// ``CapturingHTTPServer``, ``TCPForwarder``).
enum LoopbackListener {
    /// Opens, binds and listens; `port` 0 takes an ephemeral one. Returns the descriptor and the port bound.
    ///
    /// - Throws: `POSIXError` with the call's errno.
    static func open(port: Int = 0, backlog: Int32 = 16) throws -> (descriptor: Int32, port: UInt16) {
        #if canImport(Glibc)
        let descriptor = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        #else
        let descriptor = socket(AF_INET, SOCK_STREAM, 0)
        #endif
        guard descriptor >= 0 else { throw POSIXError(POSIXErrorCode(rawValue: errno) ?? .EMFILE) }
        var yes: Int32 = 1
        _ = setsockopt(descriptor, SOL_SOCKET, SO_REUSEADDR, &yes, socklen_t(MemoryLayout<Int32>.size))
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        address.sin_port = UInt16(port).bigEndian
        var length = socklen_t(MemoryLayout<sockaddr_in>.size)
        let listening = withUnsafeMutablePointer(to: &address) { pointer in
            pointer.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                bind(descriptor, $0, length) == 0 && listen(descriptor, backlog) == 0 && getsockname(descriptor, $0, &length) == 0
            }
        }
        guard listening else {
            let code = POSIXErrorCode(rawValue: errno) ?? .EADDRINUSE
            _ = close(descriptor)
            throw POSIXError(code)
        }
        return (descriptor, UInt16(bigEndian: address.sin_port))
    }
}
