import Crypto
import Foundation
import SwiftASN1
import X509

#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif

/// A development certificate authority: issues the gateway's TLS certificate and provider client certificates.
///
/// Everything is P-256 ECDSA with SHA-256 and standard X.509 v3, so NIOSSL, OpenSSL, curl and Python's `ssl` accept
/// the results. Dates come from the caller (`now`); certificates start an hour earlier to forgive clock skew.
public struct DevelopmentCertificateAuthority: Sendable, Hashable {
    /// The CA's self-signed certificate and key.
    public let root: IssuedCertificate

    /// Uses an existing CA certificate and key.
    public init(root: IssuedCertificate) {
        self.root = root
    }

    /// Generates a CA: self-signed, P-256, valid ten years from `now`.
    public static func generate(
        commonName: String = "Herald Development CA",
        now: Date,
        validity: TimeInterval = 10 * 365.25 * 86_400
    ) throws -> Self {
        let key = P256.Signing.PrivateKey()
        let publicKey = Certificate.PublicKey(key.publicKey)
        let name = try DistinguishedName {
            CommonName(commonName)
            OrganizationName("Herald Development")
        }
        let certificate = try Certificate(
            version: .v3,
            serialNumber: Certificate.SerialNumber(),
            publicKey: publicKey,
            notValidBefore: now - skew,
            notValidAfter: now + validity,
            issuer: name,
            subject: name,
            signatureAlgorithm: .ecdsaWithSHA256,
            extensions: try Certificate.Extensions {
                Critical(BasicConstraints.isCertificateAuthority(maxPathLength: 0))
                Critical(KeyUsage(digitalSignature: true, keyCertSign: true, cRLSign: true))
                SubjectKeyIdentifier(hash: publicKey)
            },
            issuerPrivateKey: Certificate.PrivateKey(key)
        )
        return Self(root: IssuedCertificate(certificate: certificate, privateKey: key))
    }

    /// Issues a TLS server certificate for host names and IP addresses (subject alternative names; serverAuth).
    ///
    /// The default validity, 825 days, is the longest Apple platforms accept for a server certificate under a
    /// locally trusted root.
    public func issueServerCertificate(
        hosts: [String] = ["localhost", "127.0.0.1", "::1"],
        now: Date,
        validity: TimeInterval = 825 * 86_400
    ) throws -> IssuedCertificate {
        let names = hosts.map { host in
            Self.ipAddressBytes(host).map { GeneralName.ipAddress(ASN1OctetString(contentBytes: $0[...])) } ?? .dnsName(host)
        }
        let subject = try DistinguishedName {
            CommonName(hosts.first ?? "localhost")
            OrganizationName("Herald Development")
        }
        return try issue(subject: subject, now: now, validity: validity) { publicKey in
            try Certificate.Extensions {
                Critical(BasicConstraints.notCertificateAuthority)
                Critical(KeyUsage(digitalSignature: true))
                try ExtendedKeyUsage([.serverAuth])
                SubjectAlternativeNames(names)
                SubjectKeyIdentifier(hash: publicKey)
                authorityKeyIdentifier
            }
        }
    }

    /// Issues a provider client certificate in Apple's form (spec §A.8): subject UID = the first topic, the
    /// `…6.3.6` extension listing every topic, the environment extensions, and clientAuth.
    ///
    /// - Parameters:
    ///   - topics: the topics it allows, the app's bundle ID first; must not be empty.
    ///   - environments: sandbox (`…6.3.1`), production (`…6.3.2`) or both (universal, both extensions).
    ///   - teamID: written as the subject's organizational unit, as Apple's certificates carry it.
    ///   - validity: one year by default: "Provider certificates are valid for a year" (spec §A.8).
    public func issueProviderCertificate(
        topics: [String],
        environments: EnvironmentScope = .both,
        teamID: String? = nil,
        now: Date,
        validity: TimeInterval = 365 * 86_400
    ) throws -> IssuedCertificate {
        guard let firstTopic = topics.first else { throw CredentialError.invalidCertificate.with("a provider certificate needs a topic") }
        var attributes: [RelativeDistinguishedName] = [
            RelativeDistinguishedName(.init(type: AppleCertificateOID.userID, utf8String: firstTopic)),
            RelativeDistinguishedName(
                .init(type: ASN1ObjectIdentifier.RDNAttributeType.commonName, utf8String: "Herald Push Services: \(firstTopic)")
            ),
        ]
        if let teamID {
            attributes.append(
                RelativeDistinguishedName(.init(type: ASN1ObjectIdentifier.RDNAttributeType.organizationalUnitName, utf8String: teamID))
            )
        }
        attributes.append(
            RelativeDistinguishedName(.init(type: ASN1ObjectIdentifier.RDNAttributeType.organizationName, utf8String: "Herald Development"))
        )
        let topicsValue = try Self.topicsExtensionValue(topics)
        let null: ArraySlice<UInt8> = [0x05, 0x00]
        return try issue(subject: DistinguishedName(attributes), now: now, validity: validity) { publicKey in
            try Certificate.Extensions {
                Critical(BasicConstraints.notCertificateAuthority)
                Critical(KeyUsage(digitalSignature: true))
                try ExtendedKeyUsage([.clientAuth])
                SubjectKeyIdentifier(hash: publicKey)
                authorityKeyIdentifier
                Certificate.Extension(oid: AppleCertificateOID.topics, critical: false, value: topicsValue)
                if environments.includes(.sandbox) {
                    Certificate.Extension(oid: AppleCertificateOID.development, critical: false, value: null)
                }
                if environments.includes(.production) {
                    Certificate.Extension(oid: AppleCertificateOID.production, critical: false, value: null)
                }
            }
        }
    }

    /// The value of a `…6.3.6` extension: `SEQUENCE { topic, SEQUENCE { label }, … }`, the label being `voip`,
    /// `complication` or `app` after the topic's suffix, as Apple's certificates list them (spec §A.8).
    static func topicsExtensionValue(_ topics: [String]) throws -> ArraySlice<UInt8> {
        var serializer = DER.Serializer()
        try serializer.appendConstructedNode(identifier: .sequence) { coder in
            for topic in topics {
                try coder.serialize(ASN1UTF8String(topic))
                let label = topic.hasSuffix(".voip") ? "voip" : topic.hasSuffix(".complication") ? "complication" : "app"
                try coder.appendConstructedNode(identifier: .sequence) { try $0.serialize(ASN1UTF8String(label)) }
            }
        }
        return serializer.serializedBytes[...]
    }

    private static let skew: TimeInterval = 3600

    private var authorityKeyIdentifier: AuthorityKeyIdentifier {
        AuthorityKeyIdentifier(
            keyIdentifier: (try? root.certificate.extensions.subjectKeyIdentifier)??.keyIdentifier
                ?? SubjectKeyIdentifier(hash: root.certificate.publicKey).keyIdentifier
        )
    }

    private func issue(
        subject: DistinguishedName,
        now: Date,
        validity: TimeInterval,
        extensions: (Certificate.PublicKey) throws -> Certificate.Extensions
    ) throws -> IssuedCertificate {
        let key = P256.Signing.PrivateKey()
        let publicKey = Certificate.PublicKey(key.publicKey)
        let notAfter = min(now + validity, root.certificate.notValidAfter)
        let certificate = try Certificate(
            version: .v3,
            serialNumber: Certificate.SerialNumber(),
            publicKey: publicKey,
            notValidBefore: max(now - Self.skew, root.certificate.notValidBefore),
            notValidAfter: notAfter,
            issuer: root.certificate.subject,
            subject: subject,
            signatureAlgorithm: .ecdsaWithSHA256,
            extensions: try extensions(publicKey),
            issuerPrivateKey: Certificate.PrivateKey(root.privateKey)
        )
        return IssuedCertificate(certificate: certificate, privateKey: key)
    }

    /// The bytes of an IPv4 or IPv6 address literal, or `nil` for a host name.
    static func ipAddressBytes(_ host: String) -> [UInt8]? {
        var v4 = in_addr()
        if inet_pton(AF_INET, host, &v4) == 1 {
            return withUnsafeBytes(of: &v4) { Array($0) }
        }
        var v6 = in6_addr()
        if inet_pton(AF_INET6, host, &v6) == 1 {
            return withUnsafeBytes(of: &v6) { Array($0) }
        }
        return nil
    }
}
