import Foundation

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

extension Interop {
    /// `count` distinct TCP ports on 127.0.0.1 that were free a moment ago (bound together, then closed), for a server
    /// that must come back on the same ports after a restart.
    ///
    /// Why below the kernel's ephemeral range (`ip_local_port_range`), not port 0: while the server is down, a client
    /// that keeps connecting to its port can be given that same port as its own source port, and the connection then
    /// succeeds with itself (TCP simultaneous open); the restarted server found its port "already in use" (seen once
    /// in DurabilityEndToEndTests, a provider client reconnecting between kill -9 and restart).
    static func freePorts(_ count: Int) throws -> [Int] {
        let ephemeralLow =
            (try? String(contentsOfFile: "/proc/sys/net/ipv4/ip_local_port_range", encoding: .utf8))
            .flatMap { $0.split(whereSeparator: \.isWhitespace).first.flatMap { Int($0) } } ?? 32_768
        let range = 10_000..<max(10_001, ephemeralLow)
        var descriptors: [Int32] = []
        defer { for descriptor in descriptors { close(descriptor) } }
        var ports: [Int] = []
        var attempts = 0
        while ports.count < count {
            attempts += 1
            guard attempts <= 1000 else { throw InteropError("no free port below \(range.upperBound) after 1000 tries") }
            let port = Int.random(in: range)
            guard !ports.contains(port) else { continue }
            #if canImport(Glibc)
            let descriptor = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
            #else
            let descriptor = socket(AF_INET, SOCK_STREAM, 0)
            #endif
            guard descriptor >= 0 else { throw InteropError("socket() failed: errno \(errno)") }
            var address = sockaddr_in()
            address.sin_family = sa_family_t(AF_INET)
            address.sin_port = UInt16(port).bigEndian
            address.sin_addr.s_addr = inet_addr("127.0.0.1")
            let bound = withUnsafePointer(to: &address) { pointer in
                pointer.withMemoryRebound(to: sockaddr.self, capacity: 1) { bind(descriptor, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) == 0 }
            }
            guard bound else {
                close(descriptor)
                continue
            }
            descriptors.append(descriptor)
            ports.append(port)
        }
        return ports
    }
}
