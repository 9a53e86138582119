import Foundation

/// The development PKI that `herald serve` writes on first start: a CA and the gateway's TLS certificate, as PEM
/// files in one directory.
///
/// Files (keys with permissions 0600): `ca.pem`, `ca-key.pem`, `server.pem`, `server-key.pem`. Certificates are
/// `-----BEGIN CERTIFICATE-----`, keys PKCS#8 `-----BEGIN PRIVATE KEY-----`, so NIOSSL
/// (`NIOSSLCertificate.fromPEMFile`, `NIOSSLPrivateKey(file:format: .pem)`), OpenSSL, curl (`--cacert ca.pem`) and
/// Python (`ssl.create_default_context(cafile=…)`) all read them. Providers trust `ca.pem`.
public struct DevelopmentPKI: Sendable, Hashable {
    /// Where the four files of a set live.
    public struct Files: Sendable, Hashable {
        /// `ca.pem`: the CA certificate, which clients trust.
        public var caCertificate: URL
        /// `ca-key.pem`: the CA's private key (`herald certs issue` signs with it).
        public var caPrivateKey: URL
        /// `server.pem`: the gateway's TLS certificate.
        public var serverCertificate: URL
        /// `server-key.pem`: the gateway's TLS private key.
        public var serverPrivateKey: URL

        /// The standard file names in a directory.
        public init(directory: URL) {
            caCertificate = directory.appendingPathComponent("ca.pem")
            caPrivateKey = directory.appendingPathComponent("ca-key.pem")
            serverCertificate = directory.appendingPathComponent("server.pem")
            serverPrivateKey = directory.appendingPathComponent("server-key.pem")
        }
    }

    /// The certificate authority.
    public let authority: DevelopmentCertificateAuthority
    /// The gateway's TLS certificate and key.
    public let server: IssuedCertificate
    /// Where the set is stored.
    public let files: Files

    /// Generates a new CA and server certificate and writes the four files, replacing any there.
    ///
    /// - Parameters:
    ///   - directory: created if needed.
    ///   - hosts: the server certificate's names and addresses.
    ///   - now: the caller's clock.
    public static func create(
        in directory: URL,
        hosts: [String] = ["localhost", "127.0.0.1", "::1"],
        now: Date
    ) throws -> DevelopmentPKI {
        let authority = try DevelopmentCertificateAuthority.generate(now: now)
        let server = try authority.issueServerCertificate(hosts: hosts, now: now)
        let pki = DevelopmentPKI(authority: authority, server: server, files: Files(directory: directory))
        try pki.write()
        return pki
    }

    /// Loads an existing set.
    ///
    /// - Throws: ``CredentialError/missingFile`` when a file is absent, ``CredentialError/invalidCertificate`` or
    ///   ``CredentialError/invalidPrivateKey`` when one is unreadable or a key does not match its certificate.
    public static func load(from directory: URL) throws(CredentialError) -> DevelopmentPKI {
        let files = Files(directory: directory)
        let root = try IssuedCertificate(certificateFile: files.caCertificate, privateKeyFile: files.caPrivateKey)
        let server = try IssuedCertificate(certificateFile: files.serverCertificate, privateKeyFile: files.serverPrivateKey)
        return DevelopmentPKI(authority: DevelopmentCertificateAuthority(root: root), server: server, files: files)
    }

    /// Loads the set in a directory, creating it when there is none (what `herald serve` does on start).
    ///
    /// A set whose server certificate expires within `renewalMargin` (default 30 days) gets a new server certificate
    /// from the same CA, so clients that trust `ca.pem` keep working; a set whose CA expires within it is replaced.
    public static func loadOrCreate(
        in directory: URL,
        hosts: [String] = ["localhost", "127.0.0.1", "::1"],
        now: Date,
        renewalMargin: TimeInterval = 30 * 86_400
    ) throws -> DevelopmentPKI {
        let files = Files(directory: directory)
        guard FileManager.default.fileExists(atPath: files.caCertificate.path) else {
            return try create(in: directory, hosts: hosts, now: now)
        }
        let existing = try load(from: directory)
        if existing.authority.root.certificate.notValidAfter < now + renewalMargin {
            return try create(in: directory, hosts: hosts, now: now)
        }
        if existing.server.certificate.notValidAfter < now + renewalMargin {
            let server = try existing.authority.issueServerCertificate(hosts: hosts, now: now)
            try server.write(certificateTo: files.serverCertificate, privateKeyTo: files.serverPrivateKey)
            return DevelopmentPKI(authority: existing.authority, server: server, files: files)
        }
        return existing
    }

    /// Issues a provider client certificate from this set's CA and writes `<name>.pem` and `<name>-key.pem` into a
    /// directory (what `herald certs issue --topic …` does).
    ///
    /// - Returns: the certificate and the two files written.
    public func issueProviderCertificate(
        topics: [String],
        environments: EnvironmentScope = .both,
        teamID: String? = nil,
        named name: String,
        in directory: URL,
        now: Date
    ) throws -> (certificate: IssuedCertificate, certificateFile: URL, privateKeyFile: URL) {
        let issued = try authority.issueProviderCertificate(topics: topics, environments: environments, teamID: teamID, now: now)
        let certificateFile = directory.appendingPathComponent("\(name).pem")
        let privateKeyFile = directory.appendingPathComponent("\(name)-key.pem")
        try issued.write(certificateTo: certificateFile, privateKeyTo: privateKeyFile)
        return (issued, certificateFile, privateKeyFile)
    }

    private func write() throws(CredentialError) {
        try authority.root.write(certificateTo: files.caCertificate, privateKeyTo: files.caPrivateKey)
        try server.write(certificateTo: files.serverCertificate, privateKeyTo: files.serverPrivateKey)
    }
}
