/// A key, certificate or PEM file that Herald cannot use (loading `.p8` files, PEM sets, peer certificates).
///
/// Callers match with `==` against the static members; ``detail`` says what exactly was wrong, for a log line or a
/// CLI message.
public struct CredentialError: Error, Hashable, Sendable, CustomStringConvertible {
    private enum Code: String, Hashable, Sendable {
        case invalidKeyID
        case invalidTeamID
        case invalidPrivateKey
        case invalidPublicKey
        case invalidCertificate
        case missingFile
        case unwritableFile
    }

    private let code: Code
    /// What exactly was wrong (a path, a library error); not part of equality.
    public let detail: String

    private init(_ code: Code, _ detail: String = "") {
        self.code = code
        self.detail = detail
    }

    /// A key ID that is not 10 ASCII letters or digits.
    public static let invalidKeyID = Self(.invalidKeyID)
    /// A team ID that is not 10 ASCII letters or digits.
    public static let invalidTeamID = Self(.invalidTeamID)
    /// Text that is not a P-256 private key in PEM (PKCS#8 `PRIVATE KEY` or SEC 1 `EC PRIVATE KEY`).
    public static let invalidPrivateKey = Self(.invalidPrivateKey)
    /// Text that is not a P-256 public key in PEM.
    public static let invalidPublicKey = Self(.invalidPublicKey)
    /// Bytes that are not an X.509 certificate.
    public static let invalidCertificate = Self(.invalidCertificate)
    /// A file that a PEM set needs is not there.
    public static let missingFile = Self(.missingFile)
    /// A file could not be written.
    public static let unwritableFile = Self(.unwritableFile)

    /// The same error with a detail.
    package func with(_ detail: String) -> Self { Self(code, detail) }

    /// Errors are equal when they are the same case, whatever the detail.
    public static func == (lhs: Self, rhs: Self) -> Bool { lhs.code == rhs.code }

    /// Hashes the case only, consistent with `==`.
    public func hash(into hasher: inout Hasher) { hasher.combine(code) }

    /// The case and its detail, for logs and CLI messages.
    public var description: String {
        detail.isEmpty ? "CredentialError.\(code.rawValue)" : "CredentialError.\(code.rawValue): \(detail)"
    }
}
