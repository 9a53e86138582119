import Crypto
import Foundation
import X509

/// A certificate and its private key, as the development PKI issues them.
public struct IssuedCertificate: Sendable, Hashable {
    /// The certificate.
    public let certificate: Certificate
    /// Its P-256 private key.
    public let privateKey: P256.Signing.PrivateKey

    /// Pairs a certificate with its key.
    public init(certificate: Certificate, privateKey: P256.Signing.PrivateKey) {
        self.certificate = certificate
        self.privateKey = privateKey
    }

    /// Reads a certificate PEM and a private key PEM (PKCS#8 `PRIVATE KEY` or SEC 1 `EC PRIVATE KEY`).
    ///
    /// - Throws: ``CredentialError/invalidCertificate``, ``CredentialError/invalidPrivateKey``, or
    ///   ``CredentialError/invalidPrivateKey`` when the key is not the certificate's.
    public init(certificatePEM: String, privateKeyPEM: String) throws(CredentialError) {
        let certificate: Certificate
        let privateKey: P256.Signing.PrivateKey
        do {
            certificate = try Certificate(pemEncoded: certificatePEM)
        } catch {
            throw CredentialError.invalidCertificate.with("\(error)")
        }
        do {
            privateKey = try P256.Signing.PrivateKey(pemRepresentation: privateKeyPEM)
        } catch {
            throw CredentialError.invalidPrivateKey.with("\(error)")
        }
        guard certificate.publicKey == Certificate.PublicKey(privateKey.publicKey) else {
            throw CredentialError.invalidPrivateKey.with("the key does not match the certificate")
        }
        self.init(certificate: certificate, privateKey: privateKey)
    }

    /// The certificate as PEM (`-----BEGIN CERTIFICATE-----`).
    public var certificatePEM: String {
        // Serializing a certificate that was parsed or built successfully cannot fail.
        do {
            return try certificate.serializeAsPEM().pemString + "\n"
        } catch {
            fatalError("serializing a valid certificate failed: \(error)")
        }
    }

    /// The private key as PEM of PKCS#8 (`-----BEGIN PRIVATE KEY-----`), which NIOSSL, OpenSSL, curl and Python read.
    public var privateKeyPEM: String { privateKey.pemRepresentation + "\n" }

    /// Writes the certificate (mode 0644) and the key (mode 0600), creating the directory if needed.
    public func write(certificateTo certificateFile: URL, privateKeyTo privateKeyFile: URL) throws(CredentialError) {
        try PEMFile.write(certificatePEM, to: certificateFile, isSecret: false)
        try PEMFile.write(privateKeyPEM, to: privateKeyFile, isSecret: true)
    }

    /// Reads a certificate file and a key file.
    public init(certificateFile: URL, privateKeyFile: URL) throws(CredentialError) {
        try self.init(certificatePEM: PEMFile.read(certificateFile), privateKeyPEM: PEMFile.read(privateKeyFile))
    }

    /// Equal when the certificates and the private keys are.
    public static func == (lhs: Self, rhs: Self) -> Bool {
        lhs.certificate == rhs.certificate && lhs.privateKey.rawRepresentation == rhs.privateKey.rawRepresentation
    }

    /// Hashes the certificate.
    public func hash(into hasher: inout Hasher) { hasher.combine(certificate) }
}
