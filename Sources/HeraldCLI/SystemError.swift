import Foundation
import NIOCore

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// The operating system's errors as the CLI says them: one line, lower case, no Foundation or NIO dump.
enum SystemError {
    /// `strerror` for an `errno`, starting in lower case: "permission denied", "address already in use".
    static func text(_ code: Int32) -> String {
        let message = String(cString: strerror(code))
        return message.prefix(1).lowercased() + message.dropFirst()
    }
}

extension SystemError {
    /// The `errno` inside a Foundation error (its POSIX error, or the one its code stands for), if any.
    static func code(of error: any Error) -> Int32? {
        let bridged = error as NSError
        if bridged.domain == NSPOSIXErrorDomain { return Int32(bridged.code) }
        if let underlying = bridged.userInfo[NSUnderlyingErrorKey] as? NSError, underlying.domain == NSPOSIXErrorDomain {
            return Int32(underlying.code)
        }
        guard let cocoa = error as? CocoaError else { return nil }
        switch cocoa.code {
        case .fileWriteNoPermission, .fileReadNoPermission: return EACCES
        case .fileNoSuchFile, .fileReadNoSuchFile: return ENOENT
        case .fileWriteOutOfSpace: return ENOSPC
        case .fileWriteVolumeReadOnly: return EROFS
        case .fileWriteFileExists: return EEXIST
        default: return nil
        }
    }
}

extension SystemError {
    /// One line for an error from the system or a library: the `errno` text with the path it concerns when there is
    /// one, else the first line of its description.
    static func line(_ error: any Error) -> String {
        if let io = error as? IOError { return SystemError.text(io.errnoCode) }
        if let code = code(of: error) {
            let path = (error as? CocoaError)?.filePath ?? ((error as NSError).userInfo[NSFilePathErrorKey] as? String)
            return path.map { "\($0): \(text(code))" } ?? text(code)
        }
        let description = "\(error)"
        return description.split(separator: "\n").first.map(String.init) ?? description
    }

    /// Throws ``CLIFailure`` ("cannot read PATH: no such file or directory") unless the file can be opened for reading.
    static func requireReadable(_ path: String) throws {
        let descriptor = open(path, O_RDONLY | O_CLOEXEC)
        guard descriptor >= 0 else { throw CLIFailure("cannot read \(path): \(text(errno))") }
        close(descriptor)
    }
}
