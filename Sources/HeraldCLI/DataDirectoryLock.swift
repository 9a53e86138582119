import Foundation

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// `herald serve`'s hold on its data directory, so that a second server on the same directory stops at once.
///
/// An exclusive `flock` on `<data-dir>/serve.lock`, which holds the pid of the server that has it. The descriptor
/// stays open for the life of the process: the operating system releases the lock when the process ends, however
/// it ends (a crash or `kill -9` included), so there is never a stale lock to remove by hand.
enum DataDirectoryLock {
    static let fileName = "serve.lock"

    /// Takes the lock of `directory` (which exists) for the rest of this process.
    ///
    /// - Throws: ``CLIFailure`` naming the pid of the server that holds it.
    static func acquire(in directory: URL) throws {
        let path = directory.appendingPathComponent(fileName).path
        let descriptor = open(path, O_RDWR | O_CREAT | O_CLOEXEC, 0o644)
        guard descriptor >= 0 else {
            throw CLIFailure(
                "cannot open \(path): \(SystemError.text(errno)) (fix the data directory's permissions, or choose another with --data-dir)"
            )
        }
        guard flock(descriptor, LOCK_EX | LOCK_NB) == 0 else {
            let code = errno
            close(descriptor)
            guard code == EWOULDBLOCK else { throw CLIFailure("cannot lock \(path): \(SystemError.text(code))") }
            let holder = (try? String(contentsOfFile: path, encoding: .utf8))?.trimmingCharacters(in: .whitespacesAndNewlines)
            let pid = holder.flatMap { Int32($0) }.map { "pid \($0)" } ?? "pid unknown"
            throw CLIFailure(
                "another herald serve (\(pid)) is using the data directory \(directory.path): stop it first, or give this one its own --data-dir"
            )
        }
        let text = Array("\(getpid())\n".utf8)
        _ = ftruncate(descriptor, 0)
        _ = text.withUnsafeBytes { pwrite(descriptor, $0.baseAddress, $0.count, 0) }
    }
}
