import Foundation
import HeraldAuth

extension APNSProviderClient {
    /// Where the client connects, how it authenticates, whom it trusts, and how long it waits.
    public struct Configuration: Sendable {
        /// The server.
        public var endpoint: Endpoint
        /// Token (JWT) or certificate authentication.
        public var authentication: Authentication
        /// PEM files of CA certificates to trust for TLS, such as Herald's `<data-dir>/tls/ca.pem`.
        public var trustRootFiles: [String] = []
        /// Whether the system's CA certificates are trusted too (needed for Apple's own hosts).
        public var trustsSystemRoots = true
        /// A server certificate (PEM file) accepted as it is, whoever issued it, instead of the trust above: for a
        /// Herald server reaching its own provider port with a certificate it was given (`--tls-cert`).
        package var pinnedServerCertificateFile: String?
        /// How long a connection may take: TCP, the TLS handshake and the server's first HTTP/2 SETTINGS.
        public var connectTimeout: Duration = .seconds(10)
        /// How long one `send` may take, from the call to the end of the answer, including any wait for a stream.
        public var responseTimeout: Duration = .seconds(30)
        /// How often a new provider token is signed.
        ///
        /// Apple: refresh "no more than once every 20 minutes and no less than once every 60 minutes" (spec §A.7);
        /// a value outside 20–60 minutes is an ``APNSProviderClientError/invalidConfiguration``.
        public var tokenRefreshInterval: Duration = .seconds(50 * 60)

        /// Creates a configuration with the default trust and timeouts.
        public init(endpoint: Endpoint, authentication: Authentication) {
            self.endpoint = endpoint
            self.authentication = authentication
        }
    }

    /// A server address: host, port, and whether the connection uses TLS (ALPN `h2`) or h2c with prior knowledge.
    public struct Endpoint: Sendable, Hashable, CustomStringConvertible {
        /// A name or an IP address; TLS verifies the server certificate against it.
        public var host: String
        /// The TCP port.
        public var port: Int
        /// TLS with ALPN `h2` when `true`; cleartext HTTP/2 with prior knowledge (h2c) when `false`.
        public var usesTLS: Bool

        /// Creates an endpoint.
        public init(host: String, port: Int, usesTLS: Bool) {
            self.host = host
            self.port = port
            self.usesTLS = usesTLS
        }

        /// Parses `https://host[:port]` (TLS, port 443 by default) or `http://host[:port]` (h2c, port 80 by default);
        /// an IPv6 address goes in brackets. `nil` for anything else, including a path other than `/`.
        public init?(url: String) {
            let usesTLS: Bool
            let rest: Substring
            if url.lowercased().hasPrefix("https://") {
                (usesTLS, rest) = (true, url.dropFirst("https://".count))
            } else if url.lowercased().hasPrefix("http://") {
                (usesTLS, rest) = (false, url.dropFirst("http://".count))
            } else {
                return nil
            }
            var authority = rest
            if let slash = rest.firstIndex(of: "/") {
                guard rest[slash...] == "/" else { return nil }
                authority = rest[..<slash]
            }
            var host: Substring
            var portText: Substring?
            if authority.hasPrefix("[") {
                guard let close = authority.firstIndex(of: "]") else { return nil }
                host = authority[authority.index(after: authority.startIndex)..<close]
                let after = authority[authority.index(after: close)...]
                if !after.isEmpty {
                    guard after.hasPrefix(":") else { return nil }
                    portText = after.dropFirst()
                }
            } else if let colon = authority.lastIndex(of: ":") {
                host = authority[..<colon]
                portText = authority[authority.index(after: colon)...]
            } else {
                host = authority
            }
            guard !host.isEmpty, !host.contains(where: { $0 == "@" || $0.isWhitespace }) else { return nil }
            var port = usesTLS ? 443 : 80
            if let portText {
                guard let parsed = Int(portText), (1...65_535).contains(parsed) else { return nil }
                port = parsed
            }
            self.init(host: String(host), port: port, usesTLS: usesTLS)
        }

        /// Apple's development server, `https://api.sandbox.push.apple.com:443`.
        public static let appleSandbox = Endpoint(host: "api.sandbox.push.apple.com", port: 443, usesTLS: true)
        /// Apple's production server, `https://api.push.apple.com:443`.
        public static let appleProduction = Endpoint(host: "api.push.apple.com", port: 443, usesTLS: true)

        /// The endpoint as a URL, `https://localhost:2197`.
        public var description: String {
            let name = host.contains(":") ? "[\(host)]" : host
            return "\(usesTLS ? "https" : "http")://\(name):\(port)"
        }

        /// The `:authority` of requests: the host, with the port unless it is the scheme's default.
        var authority: String {
            let name = host.contains(":") ? "[\(host)]" : host
            return port == (usesTLS ? 443 : 80) ? name : "\(name):\(port)"
        }
    }

    /// How the provider proves who it is (spec §A.7, §A.8).
    public enum Authentication: Sendable {
        /// Token authentication: every request carries `authorization: bearer <JWT>`, signed with this key (ES256)
        /// and re-signed every ``Configuration/tokenRefreshInterval``.
        case token(PrivateSigningKey)
        /// Certificate authentication: the TLS connection presents this client certificate; requests carry no token.
        case certificate(ClientCertificate)
        /// No credentials: the server answers `MissingProviderToken` (for tests of exactly that).
        case none
    }

    /// A provider client certificate and its private key, PEM.
    public struct ClientCertificate: Sendable, Hashable {
        /// The certificate, optionally followed by intermediates, as PEM.
        public var certificateChainPEM: String
        /// The private key as PEM.
        public var privateKeyPEM: String

        /// Wraps PEM text.
        public init(certificateChainPEM: String, privateKeyPEM: String) {
            self.certificateChainPEM = certificateChainPEM
            self.privateKeyPEM = privateKeyPEM
        }

        /// Reads a certificate (PEM) file and its key (PEM) file, as `herald certs issue` writes them.
        ///
        /// - Throws: ``APNSProviderClientError/invalidConfiguration`` when a file cannot be read.
        public init(certificateFile: String, privateKeyFile: String) throws(APNSProviderClientError) {
            func read(_ path: String) throws(APNSProviderClientError) -> String {
                do {
                    return try String(contentsOfFile: path, encoding: .utf8)
                } catch {
                    throw APNSProviderClientError.invalidConfiguration.with("cannot read \(path)")
                }
            }
            self.init(certificateChainPEM: try read(certificateFile), privateKeyPEM: try read(privateKeyFile))
        }
    }
}
