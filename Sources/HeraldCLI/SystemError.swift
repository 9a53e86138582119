import Foundation
import HeraldAuth
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
        if let credential = error as? CredentialError { return line(credential) }
        if let code = code(of: error) {
            let path = (error as? CocoaError)?.filePath ?? ((error as NSError).userInfo[NSFilePathErrorKey] as? String)
            return path.map { "\($0): \(text(code))" } ?? text(code)
        }
        let description = "\(error)"
        return description.split(separator: "\n").first.map(String.init) ?? description
    }

    /// Throws ``CLIFailure`` ("cannot read PATH: no such file or directory", "…: is a directory") unless the file can
    /// be opened for reading and is not a directory (which opens, and then reads as an error without a reason).
    static func requireReadable(_ path: String) throws {
        let descriptor = open(path, O_RDONLY | O_CLOEXEC)
        guard descriptor >= 0 else { throw CLIFailure("cannot read \(path): \(text(errno))") }
        defer { close(descriptor) }
        var status = stat()
        if fstat(descriptor, &status) == 0, status.st_mode & S_IFMT == S_IFDIR {
            throw CLIFailure("cannot read \(path): \(text(EISDIR)) (give a file)")
        }
    }

    /// Why a directory cannot be made at `path` when the system says only "input/output error" or nothing: the
    /// nearest existing folder on its path is a file, or cannot be written; `nil` when neither.
    static func directoryObstacle(_ path: String) -> String? {
        var parent = URL(fileURLWithPath: path).standardizedFileURL
        repeat {
            parent.deleteLastPathComponent()
        } while !FileManager.default.fileExists(atPath: parent.path) && parent.pathComponents.count > 1
        var isDirectory: ObjCBool = false
        guard FileManager.default.fileExists(atPath: parent.path, isDirectory: &isDirectory) else { return nil }
        if !isDirectory.boolValue { return "\(parent.path) is a file, not a directory" }
        return access(parent.path, W_OK) == 0 ? nil : "\(parent.path): \(text(errno))"
    }
}

extension SystemError {
    /// A key or certificate Herald cannot use, in words: what it is not, and the value or file concerned.
    static func line(_ credential: CredentialError) -> String {
        let what: String
        switch credential {
        case .invalidKeyID: what = "not a key id (10 letters or digits)"
        case .invalidTeamID: what = "not a team id (10 letters or digits)"
        case .invalidPrivateKey: what = "not a P-256 private key in PEM (a .p8 file)"
        case .invalidPublicKey: what = "not a P-256 public key in PEM"
        case .invalidCertificate: what = "not an X.509 certificate"
        case .missingFile: what = "no such file"
        default: return credential.description
        }
        return credential.detail.isEmpty ? what : "\(credential.detail): \(what)"
    }

    /// Throws ``CLIFailure`` ("cannot write PATH: not a directory") when a file cannot be written there: the file is
    /// read-only, or the nearest existing folder on its path is not a folder or cannot be written (missing folders
    /// below it are created by the writer).
    static func requireWritable(_ path: String) throws {
        if FileManager.default.fileExists(atPath: path) {
            guard access(path, W_OK) == 0 else { throw CLIFailure("cannot write \(path): \(text(errno))") }
            return
        }
        var directory = URL(fileURLWithPath: path).deletingLastPathComponent()
        while !FileManager.default.fileExists(atPath: directory.path), directory.pathComponents.count > 1 {
            directory.deleteLastPathComponent()
        }
        var isDirectory: ObjCBool = false
        _ = FileManager.default.fileExists(atPath: directory.path, isDirectory: &isDirectory)
        guard isDirectory.boolValue else { throw CLIFailure("cannot write \(path): \(text(ENOTDIR))") }
        guard access(directory.path, W_OK) == 0 else { throw CLIFailure("cannot write \(path): \(text(errno))") }
    }
}
