import Foundation
import HeraldStore

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

extension ServeCommand {
    /// What `herald serve` checks before it opens anything, so that each failure is one line naming the path or
    /// port and what to do: the data directory (created here, and only here), its lock.
    func preflight() throws {
        try prepareDataDirectory()
        try DataDirectoryLock.acquire(in: data.url)
        try data.requireWritableDatabase()
        for (port, option) in [(tlsPort, "--tls-port"), (cleartextPort, "--h2c-port"), (linkPort, "--link-port")] where port > 0 {
            guard let failure = PortProbe.failure(host: host, port: port) else { continue }
            let hint: String
            switch failure.code {
            case EADDRINUSE: hint = "is another herald serve running? choose another port with \(option)"
            case EACCES: hint = "ports below 1024 need privileges; choose another with \(option)"
            default: hint = "check --host and \(option)"
            }
            throw CLIFailure("cannot listen on \(host):\(port): \(failure.text) (\(hint))")
        }
    }

    /// Creates the data directory when it does not exist: `serve` is the one command that does.
    private func prepareDataDirectory() throws {
        let path = data.url.standardizedFileURL.path
        do {
            try FileManager.default.createDirectory(at: data.url, withIntermediateDirectories: true)
        } catch {
            // A file on the path: Foundation's error carries no errno, and EIO ("input/output error") said nothing.
            let reason = SystemError.code(of: error).map(SystemError.text) ?? SystemError.directoryObstacle(path) ?? SystemError.line(error)
            throw CLIFailure("cannot create the data directory \(path): \(reason) (choose another with --data-dir)")
        }
        guard access(path, W_OK) == 0 else {
            throw CLIFailure(
                "cannot write to the data directory \(path): \(SystemError.text(errno)) (fix its permissions, or choose another with --data-dir)"
            )
        }
    }
}
