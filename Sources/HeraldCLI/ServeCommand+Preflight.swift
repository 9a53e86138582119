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
    }

    /// Creates the data directory when it does not exist: `serve` is the one command that does.
    private func prepareDataDirectory() throws {
        let path = data.url.standardizedFileURL.path
        do {
            try FileManager.default.createDirectory(at: data.url, withIntermediateDirectories: true)
        } catch {
            throw CLIFailure(
                "cannot create the data directory \(path): \(SystemError.text(SystemError.code(of: error) ?? EIO)) (choose another with --data-dir)"
            )
        }
    }
}
