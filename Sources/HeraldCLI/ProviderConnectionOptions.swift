import ArgumentParser
import Foundation
import HeraldProviderClient
import Logging

/// How a command reaches a provider port and signs in there: the server, whom to trust, token or certificate
/// authentication and the timeout; every command that talks to a provider port takes these.
struct ProviderConnectionOptions: ParsableArguments {
    @Option(name: .customLong("key-file"), help: "Token auth: the .p8 key.")
    var keyFile: String?

    @Option(name: .customLong("key-id"), help: "Token auth: the key id (default: from an AuthKey_<KEYID>.p8 file name).")
    var keyID: String?

    @Option(name: .customLong("team-id"), help: "Token auth: the team id (default: the one the data directory registered for the key).")
    var teamID: String?

    @Option(help: "Certificate auth: the client certificate (PEM), as `herald certs issue` writes it.")
    var cert: String?

    @Option(name: .customLong("cert-key"), help: "Certificate auth: the certificate's private key (PEM).")
    var certKey: String?

    @Option(help: "The server: https://host:port (TLS, ALPN h2) or http://host:port (h2c).")
    var server = ProviderConnectionOptions.defaultURL

    /// `--server`'s old name, kept (hidden) so that scripts written for it still work.
    @Option(name: .customLong("url"), help: .hidden)
    var deprecatedURL: String?

    @Option(name: .customLong("ca-file"), help: "Trust only this CA (PEM); default: <data-dir>/tls/ca.pem and the system's CAs.")
    var caFile: String?

    @Option(help: "Seconds to wait for each answer (and for the connection).")
    var timeout: Double = 30

    /// The local Herald's TLS port.
    static let defaultURL = "https://localhost:2197"

    /// The server's URL: `--server`, or the deprecated `--url`.
    var url: String { deprecatedURL ?? server }

    /// The server, from `--server` (or `--url`), after checking `--timeout`.
    ///
    /// - Throws: ``CLIFailure`` for a timeout that is not a positive number, both `--url` and `--server`, or a URL
    ///   that names no server.
    func endpoint() throws -> APNSProviderClient.Endpoint {
        guard timeout > 0, timeout.isFinite else { throw CLIFailure("--timeout must be a positive number of seconds") }
        if deprecatedURL != nil, server != Self.defaultURL { throw CLIFailure("give --server only (--url is its old name)") }
        guard let endpoint = APNSProviderClient.Endpoint(url: url) else {
            throw CLIFailure("'\(url)' is not a server URL (expected https://host:port or http://host:port)")
        }
        return endpoint
    }

    /// Certificate auth with `--cert`/`--cert-key`; otherwise token auth with the key options, filled in from the
    /// data directory where they are missing.
    func authentication(data: DataDirectoryOptions) async throws -> APNSProviderClient.Authentication {
        let tokenOptions = keyFile != nil || keyID != nil || teamID != nil
        if cert != nil || certKey != nil {
            guard let cert, let certKey else { throw CLIFailure("--cert and --cert-key go together") }
            guard !tokenOptions else { throw CLIFailure("give --cert/--cert-key or --key-file/--key-id/--team-id, not both") }
            do {
                return .certificate(try APNSProviderClient.ClientCertificate(certificateFile: cert, privateKeyFile: certKey))
            } catch {
                throw CLIFailure(error.detail)
            }
        }
        return .token(try await ProviderKeyLocator.signingKey(keyFile: keyFile, keyID: keyID, teamID: teamID, data: data))
    }

    /// The client's configuration: the timeouts, and the CA to trust (`--ca-file`, else the data directory's
    /// development CA when it exists, beside the system's).
    func configuration(
        endpoint: APNSProviderClient.Endpoint,
        authentication: APNSProviderClient.Authentication,
        data: DataDirectoryOptions
    ) -> APNSProviderClient.Configuration {
        var configuration = APNSProviderClient.Configuration(endpoint: endpoint, authentication: authentication)
        configuration.responseTimeout = .milliseconds(Int64(timeout * 1000))
        configuration.connectTimeout = min(configuration.responseTimeout, .seconds(10))
        if let caFile {
            configuration.trustRootFiles = [caFile]
            configuration.trustsSystemRoots = false
        } else {
            let developmentCA = data.tlsDirectory.appendingPathComponent("ca.pem").path
            if FileManager.default.fileExists(atPath: developmentCA) { configuration.trustRootFiles = [developmentCA] }
        }
        return configuration
    }

    /// Makes a client, connects (so that a server that is not there is one clear line), runs `body` and shuts the
    /// client down, whatever `body` does.
    static func withClient<T>(
        _ configuration: APNSProviderClient.Configuration,
        label: String,
        _ body: (APNSProviderClient) async throws -> T
    ) async throws -> T {
        var logger = Logger(label: label)
        logger.logLevel = .warning
        let client = try APNSProviderClient(configuration: configuration, logger: logger)
        do {
            try await connect(client)
            let result = try await body(client)
            await client.shutdown()
            return result
        } catch {
            await client.shutdown()
            throw error
        }
    }

    private static func connect(_ client: APNSProviderClient) async throws {
        do {
            try await client.connect()
        } catch let error as APNSProviderClientError
            where error == .connectFailed && ["localhost", "127.0.0.1", "::1"].contains(client.configuration.endpoint.host)
        {
            throw CLIFailure("\(error) (is `herald serve` running? --server takes its TLS: or cleartext: URL)")
        }
    }

    /// Warns, on standard error, that `--url` is deprecated.
    func warnAboutDeprecatedOptions() {
        if deprecatedURL != nil {
            FileHandle.standardError.write(Data("herald: warning: --url is deprecated; use --server (the name herald device uses)\n".utf8))
        }
    }
}
