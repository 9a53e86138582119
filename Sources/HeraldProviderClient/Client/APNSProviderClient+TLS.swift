import NIOSSL

extension APNSProviderClient {
    /// The TLS client context: ALPN `h2`, TLS 1.2 or later, the configured trust, and the client certificate for
    /// certificate authentication.
    static func makeTLSContext(_ configuration: Configuration) throws(APNSProviderClientError) -> NIOSSLContext {
        var tls = TLSConfiguration.makeClientConfiguration()
        tls.applicationProtocols = ["h2"]
        tls.minimumTLSVersion = .tlsv12
        if configuration.pinnedServerCertificateFile != nil {
            // The pinned certificate is the whole check (the connection's verification callback); it may name any host.
            tls.certificateVerification = .noHostnameVerification
        }
        do {
            let roots = try configuration.trustRootFiles.flatMap { path in
                do {
                    return try NIOSSLCertificate.fromPEMFile(path)
                } catch {
                    throw APNSProviderClientError.invalidConfiguration.with("cannot read the CA certificate \(path): \(error)")
                }
            }
            if configuration.trustsSystemRoots {
                if !roots.isEmpty { tls.additionalTrustRoots = [.certificates(roots)] }
            } else {
                tls.trustRoots = .certificates(roots)
            }
            if case .certificate(let certificate) = configuration.authentication {
                do {
                    tls.certificateChain = try NIOSSLCertificate.fromPEMBytes(Array(certificate.certificateChainPEM.utf8)).map { .certificate($0) }
                    tls.privateKey = .privateKey(try NIOSSLPrivateKey(bytes: Array(certificate.privateKeyPEM.utf8), format: .pem))
                } catch {
                    throw APNSProviderClientError.invalidConfiguration.with("unusable client certificate or key: \(error)")
                }
            }
            return try NIOSSLContext(configuration: tls)
        } catch let error as APNSProviderClientError {
            throw error
        } catch {
            throw .invalidConfiguration.with("TLS: \(error)")
        }
    }

    /// The first certificate of a PEM file, for ``Configuration/pinnedServerCertificateFile``.
    static func loadPinnedCertificate(_ path: String) throws(APNSProviderClientError) -> NIOSSLCertificate {
        let certificates: [NIOSSLCertificate]
        do {
            certificates = try NIOSSLCertificate.fromPEMFile(path)
        } catch {
            throw .invalidConfiguration.with("cannot read the server certificate \(path): \(error)")
        }
        guard let first = certificates.first else { throw .invalidConfiguration.with("no certificate in \(path)") }
        return first
    }
}
