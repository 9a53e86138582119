import Foundation

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

extension Interop {
    /// Calls `probe` every `interval` until it returns a value, and returns that value; throws when `deadline`
    /// passes first, with `state()` (what was last seen) in the message. A wait with a deadline, never a timing
    /// assertion: a slow machine only makes it take longer.
    @discardableResult
    static func poll<Value>(
        _ what: String,
        deadline: Duration,
        interval: Duration = .milliseconds(100),
        state: @autoclosure () -> String = "",
        _ probe: () async throws -> Value?
    ) async throws -> Value {
        let clock = ContinuousClock()
        let end = clock.now + deadline
        while true {
            if let value = try await probe() { return value }
            guard clock.now < end else { throw InteropError("timed out after \(deadline) waiting for \(what)\n\(state())") }
            try await Task.sleep(for: interval)
        }
    }

    /// `count` distinct TCP ports on 127.0.0.1 that were free a moment ago (bound to port 0 together, then closed),
    /// for a server that must come back on the same ports after a restart.
    static func freePorts(_ count: Int) throws -> [Int] {
        var descriptors: [Int32] = []
        defer { for descriptor in descriptors { close(descriptor) } }
        var ports: [Int] = []
        for _ in 0..<count {
            #if canImport(Glibc)
            let descriptor = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
            #else
            let descriptor = socket(AF_INET, SOCK_STREAM, 0)
            #endif
            guard descriptor >= 0 else { throw InteropError("socket() failed: errno \(errno)") }
            descriptors.append(descriptor)
            var address = sockaddr_in()
            address.sin_family = sa_family_t(AF_INET)
            address.sin_port = 0
            address.sin_addr.s_addr = inet_addr("127.0.0.1")
            var length = socklen_t(MemoryLayout<sockaddr_in>.size)
            let bound = withUnsafeMutablePointer(to: &address) { pointer in
                pointer.withMemoryRebound(to: sockaddr.self, capacity: 1) { socketAddress in
                    bind(descriptor, socketAddress, length) == 0 && getsockname(descriptor, socketAddress, &length) == 0
                }
            }
            guard bound else { throw InteropError("could not bind a free port: errno \(errno)") }
            ports.append(Int(UInt16(bigEndian: address.sin_port)))
        }
        return ports
    }
}
