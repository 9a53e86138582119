import Foundation
import HeraldCore
import X509

/// A provider's client certificate, read for what APNs takes from it: topics, environment and validity
/// (spec §A.8).
///
/// The gateway builds one from the peer's leaf certificate after the TLS handshake (NIOSSL gives DER bytes) and
/// hands it to ``ConnectionAuthentication``. Trust (the chain to a configured CA) is the TLS layer's job; this type
/// applies the APNs rules on top.
public struct ProviderCertificate: Sendable, Hashable {
    /// The parsed certificate.
    public let certificate: Certificate
    /// The topics it allows, the subject UID first (spec §A.8). One topic makes a single-topic certificate.
    public let topics: [String]
    /// The environments it works in: `…6.3.1` is development (sandbox), `…6.3.2` production, both together
    /// universal. A certificate with neither (not Apple's form, e.g. one from a company CA) is taken as universal.
    public let environments: EnvironmentScope

    /// Reads a certificate.
    public init(_ certificate: Certificate) {
        self.certificate = certificate
        self.topics = Self.topics(of: certificate)
        let development = certificate.extensions[oid: AppleCertificateOID.development] != nil
        let production = certificate.extensions[oid: AppleCertificateOID.production] != nil
        switch (development, production) {
        case (true, false): self.environments = .sandbox
        case (false, true): self.environments = .production
        default: self.environments = .both
        }
    }

    /// Reads a DER-encoded certificate (as NIOSSL's `NIOSSLCertificate.toDERBytes()` returns it).
    ///
    /// - Throws: ``CredentialError/invalidCertificate``.
    public init(derBytes: [UInt8]) throws(CredentialError) {
        do {
            self.init(try Certificate(derEncoded: derBytes))
        } catch {
            throw CredentialError.invalidCertificate.with("\(error)")
        }
    }

    /// Reads a PEM certificate (`-----BEGIN CERTIFICATE-----`).
    ///
    /// - Throws: ``CredentialError/invalidCertificate``.
    public init(pemEncoded: String) throws(CredentialError) {
        do {
            self.init(try Certificate(pemEncoded: pemEncoded))
        } catch {
            throw CredentialError.invalidCertificate.with("\(error)")
        }
    }

    /// The topic used when a request has no `apns-topic`: the only topic of a single-topic certificate, else `nil`.
    ///
    /// Legacy text: "the APNs server uses the certificate's Subject as the default topic" (spec §A.2).
    public var defaultTopic: String? { topics.count == 1 ? topics[0] : nil }

    /// Why the certificate cannot authenticate on a connection of an environment at a time, or `nil` if it can.
    ///
    /// `BadCertificate` when it is expired or not yet valid; `BadCertificateEnvironment` when it is for the other
    /// environment (spec §A.5). The gateway may call this right after the handshake (APNs is observed to send a GOAWAY
    /// with the reason, [S24e]) and ``authorize(topic:environment:nowSeconds:)`` checks it again on each request.
    public func rejection(environment: APNSEnvironment, nowSeconds: Int64) -> APNSReason? {
        let now = Date(timeIntervalSince1970: TimeInterval(nowSeconds))
        if now < certificate.notValidBefore || now > certificate.notValidAfter { return .badCertificate }
        if !environments.includes(environment) { return .badCertificateEnvironment }
        return nil
    }

    /// Authorizes a request's topic, returning the topic to deliver to.
    ///
    /// - Returns: the request's topic when the certificate lists it; the default topic of a single-topic certificate
    ///   when the request has none; else `MissingTopic` (no topic, several in the certificate), `TopicDisallowed`
    ///   (a topic the certificate does not list), or the reason from ``rejection(environment:nowSeconds:)``.
    public func authorize(topic: String?, environment: APNSEnvironment, nowSeconds: Int64) -> Result<String, APNSReason> {
        if let reason = rejection(environment: environment, nowSeconds: nowSeconds) { return .failure(reason) }
        guard let topic else {
            // "It is mandatory when connected with a multi-topic certificate" (spec §A.5, MissingTopic).
            return defaultTopic.map { .success($0) } ?? .failure(.missingTopic)
        }
        return topics.contains(topic) ? .success(topic) : .failure(.topicDisallowed)
    }
}
