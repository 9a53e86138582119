import Foundation
import HeraldAuth

/// What a provider needs to talk to the test server: a signing key registered with it (the `.p8` as text
/// and as a file, its key id and team id) and the CA that signed the server's TLS certificate.
public struct ProviderCredentials: Sendable {
    /// The key id (the JWT `kid`).
    public let keyID: String
    /// The team id (the JWT `iss`).
    public let teamID: String
    /// The private key as a `.p8` file holds it (PEM).
    public let p8: String
    /// A `.p8` file with the key.
    public let p8File: URL
    /// The development CA's certificate (PEM), to trust for the TLS port.
    public let caCertificateFile: URL
    /// The key, for Swift clients that sign tokens themselves.
    public let signingKey: PrivateSigningKey
}
