import Foundation
import HeraldProviderClient

extension HeraldTestServer {
    /// An APNs provider client for this server, with the generated key: over TLS (trusting only the development CA)
    /// by default, or h2c. The caller shuts it down.
    public func makeProviderClient(tls: Bool = true) throws -> APNSProviderClient {
        try APNSProviderClient(configuration: providerClientConfiguration(tls: tls), clock: clock)
    }

    /// The configuration of ``makeProviderClient(tls:)``, for a provider's code that builds its own client.
    public func providerClientConfiguration(tls: Bool = true) throws -> APNSProviderClient.Configuration {
        let url = tls ? tlsURL : cleartextURL
        guard let url, let endpoint = APNSProviderClient.Endpoint(url: url) else {
            throw HeraldExpectationFailure("the test server has no \(tls ? "TLS" : "h2c") port (HeraldTestServer.Options.tls)")
        }
        var configuration = APNSProviderClient.Configuration(endpoint: endpoint, authentication: .token(credentials.signingKey))
        if tls {
            configuration.trustRootFiles = [credentials.caCertificateFile.path]
            configuration.trustsSystemRoots = false
        }
        return configuration
    }
}
