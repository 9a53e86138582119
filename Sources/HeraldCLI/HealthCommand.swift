import ArgumentParser
import Foundation
import HeraldCore

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// `herald health`: asks a running `herald serve` for `/readyz` (or `/healthz`) on its web port and exits 0 when it
/// answers `200`, 1 otherwise, with one line. The container image's health check (docs/install.md): the image has no
/// curl, and an orchestrator's exec probe needs a command that exits non-zero.
struct HealthCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "health",
        abstract: "Ask a running herald serve whether it is ready (GET /readyz on its web port); exit 0 if so, 1 if not."
    )

    @Option(help: "The web port's address.")
    var host = "127.0.0.1"

    @Option(name: .customLong("link-port"), help: "The web port (herald serve --link-port).")
    var linkPort = 2196

    @Flag(help: "Ask /healthz (the process answers) instead of /readyz (store open, ports bound, lease held).")
    var live = false

    @Option(help: "Seconds to wait for the answer.")
    var timeout = 5

    func validate() throws {
        guard (1...65_535).contains(linkPort) else { throw ValidationError("--link-port must be a port from 1 to 65535, not \(linkPort)") }
        guard (1...300).contains(timeout) else { throw ValidationError("--timeout must be between 1 and 300 seconds, not \(timeout)") }
    }

    func run() async throws {
        try await reportingErrors {
            let path = live ? "/healthz" : "/readyz"
            let answer = try HealthProbe.get(host: host, port: linkPort, path: path, timeoutSeconds: timeout)
            if answer.status == 200 {
                print("herald: \(path) 200 \(answer.body)")
                return
            }
            throw CLIFailure("\(path) answered \(answer.status): \(answer.body.isEmpty ? "(no body)" : answer.body)")
        }
    }
}

/// One HTTP/1.1 GET on a blocking socket, for ``HealthCommand``: small enough to need nothing but the C library, so
/// that the health check works in an image that holds only the `herald` binary.
enum HealthProbe {
    /// The status and the start of the body (HeraldCore, where its reading is fuzzed).
    typealias Answer = HealthAnswer

    /// The largest answer read; `/readyz` answers about 100 bytes.
    static let maximumAnswerBytes = HealthAnswer.maximumBytes

    static func get(host: String, port: Int, path: String, timeoutSeconds: Int) throws -> Answer {
        guard let list = StreamAddress.lookup(host: host, port: port, passive: false) else {
            throw CLIFailure("cannot resolve \(host) (give --host an address of the machine herald serve runs on)")
        }
        let first = list
        defer { freeaddrinfo(list) }
        let descriptor = socket(first.pointee.ai_family, first.pointee.ai_socktype, first.pointee.ai_protocol)
        guard descriptor >= 0 else { throw CLIFailure("cannot open a socket: \(SystemError.text(errno))") }
        defer { close(descriptor) }
        var limit = timeval(tv_sec: timeoutSeconds, tv_usec: 0)
        _ = setsockopt(descriptor, SOL_SOCKET, SO_RCVTIMEO, &limit, socklen_t(MemoryLayout<timeval>.size))
        _ = setsockopt(descriptor, SOL_SOCKET, SO_SNDTIMEO, &limit, socklen_t(MemoryLayout<timeval>.size))
        guard connect(descriptor, first.pointee.ai_addr, first.pointee.ai_addrlen) == 0 else {
            let code = errno
            throw CLIFailure("nothing answers on \(host):\(port): \(SystemError.text(code)) (is herald serve running, with this --link-port?)")
        }
        let request = Array("GET \(path) HTTP/1.1\r\nhost: \(host):\(port)\r\nconnection: close\r\n\r\n".utf8)
        var sent = 0
        while sent < request.count {
            let count = request[sent...].withUnsafeBytes { send(descriptor, $0.baseAddress, $0.count, 0) }
            guard count > 0 else { throw CLIFailure("cannot send to \(host):\(port): \(SystemError.text(errno))") }
            sent += count
        }
        var received: [UInt8] = []
        var buffer = [UInt8](repeating: 0, count: 4096)
        while received.count < maximumAnswerBytes {
            let count = buffer.withUnsafeMutableBytes { recv(descriptor, $0.baseAddress, $0.count, 0) }
            if count == 0 { break }
            guard count > 0 else {
                let code = errno
                if code == EAGAIN || code == EWOULDBLOCK {
                    throw CLIFailure("\(host):\(port) did not answer within \(timeoutSeconds) s")
                }
                throw CLIFailure("cannot read from \(host):\(port): \(SystemError.text(code))")
            }
            received += buffer[..<count]
        }
        return try parse(received, from: "\(host):\(port)")
    }

    /// The status and body of an HTTP/1.1 answer; an answer that is not HTTP is a one-line failure naming `peer`.
    static func parse(_ bytes: [UInt8], from peer: String) throws -> Answer {
        guard let answer = HealthAnswer(bytes: bytes) else {
            throw CLIFailure("\(peer) did not answer HTTP (is it herald serve's web port?)")
        }
        return answer
    }
}
