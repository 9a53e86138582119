import Foundation

#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif

/// Writing and reading the PEM files of keys and certificates.
package enum PEMFile {
    /// Writes text to a file, creating its directory; a secret (a private key) gets permissions 0600 from the moment
    /// the file exists, anything else 0644.
    package static func write(_ text: String, to file: URL, isSecret: Bool) throws(CredentialError) {
        let directory = file.deletingLastPathComponent()
        do {
            try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        } catch {
            throw CredentialError.unwritableFile.with("\(directory.path): \(error)")
        }
        let mode: mode_t = isSecret ? 0o600 : 0o644
        let descriptor = open(file.path, O_WRONLY | O_CREAT | O_TRUNC, mode)
        guard descriptor >= 0 else { throw CredentialError.unwritableFile.with("\(file.path): errno \(errno)") }
        defer { close(descriptor) }
        // An existing file keeps its old mode through `open`; set it explicitly.
        guard fchmod(descriptor, mode) == 0 else { throw CredentialError.unwritableFile.with("\(file.path): errno \(errno)") }
        let bytes = Array(text.utf8)
        var written = 0
        while written < bytes.count {
            let result = bytes[written...].withUnsafeBytes { buffer in
                posixWrite(descriptor, buffer.baseAddress, buffer.count)
            }
            if result < 0 {
                if errno == EINTR { continue }
                throw CredentialError.unwritableFile.with("\(file.path): errno \(errno)")
            }
            written += result
        }
    }

    /// Reads a file's text.
    package static func read(_ file: URL) throws(CredentialError) -> String {
        do {
            return try String(contentsOf: file, encoding: .utf8)
        } catch {
            throw CredentialError.missingFile.with(file.path)
        }
    }
}

// `write` is shadowed by `PEMFile.write` inside the enum; call the C function through a file-level alias.
private func posixWrite(_ descriptor: Int32, _ buffer: UnsafeRawPointer?, _ count: Int) -> Int {
    write(descriptor, buffer, count)
}
