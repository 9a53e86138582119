import Crypto
import Foundation
import HeraldCore
import HeraldTestSupport
import HeraldTestTiers
import SwiftASN1
import Testing
import X509

@testable import HeraldAuth

@Suite("Provider certificates", .tier(.unit))
struct ProviderCertificateTests {
    static let authority = try! DevelopmentCertificateAuthority.generate(now: date(AuthFixtures.now))
    let now = AuthFixtures.now

    static func date(_ seconds: Int64) -> Date { Date(timeIntervalSince1970: TimeInterval(seconds)) }

    func issue(_ topics: [String], _ environments: EnvironmentScope = .both) throws -> ProviderCertificate {
        let issued = try Self.authority.issueProviderCertificate(topics: topics, environments: environments, now: Self.date(now))
        var serializer = DER.Serializer()
        try serializer.serialize(issued.certificate)
        return try ProviderCertificate(derBytes: serializer.serializedBytes)
    }

    @Test("a single-topic certificate: its topic, and the default topic when a request has none")
    func singleTopic() throws {
        let certificate = try issue(["com.example.app"])
        #expect(certificate.topics == ["com.example.app"])
        #expect(certificate.defaultTopic == "com.example.app")
        #expect(certificate.authorize(topic: nil, environment: .sandbox, nowSeconds: now) == .success("com.example.app"))
        #expect(certificate.authorize(topic: "com.example.app", environment: .production, nowSeconds: now) == .success("com.example.app"))
        #expect(certificate.authorize(topic: "com.example.other", environment: .sandbox, nowSeconds: now) == .failure(.topicDisallowed))
    }

    @Test("a multi-topic certificate lists every topic; no topic is MissingTopic")
    func multiTopic() throws {
        let topics = ["com.example.app", "com.example.app.voip", "com.example.app.complication"]
        let certificate = try issue(topics)
        #expect(certificate.topics == topics)
        #expect(certificate.defaultTopic == nil)
        #expect(certificate.authorize(topic: nil, environment: .sandbox, nowSeconds: now) == .failure(.missingTopic))
        #expect(certificate.authorize(topic: "com.example.app.voip", environment: .sandbox, nowSeconds: now) == .success("com.example.app.voip"))
        #expect(certificate.authorize(topic: "com.example.app.widgets", environment: .sandbox, nowSeconds: now) == .failure(.topicDisallowed))
    }

    @Test("environment extensions: development, production, both")
    func environments() throws {
        let sandbox = try issue(["com.example.app"], .sandbox)
        let production = try issue(["com.example.app"], .production)
        let universal = try issue(["com.example.app"], .both)
        #expect(sandbox.environments == .sandbox)
        #expect(production.environments == .production)
        #expect(universal.environments == .both)
        #expect(sandbox.rejection(environment: .production, nowSeconds: now) == .badCertificateEnvironment)
        #expect(production.authorize(topic: nil, environment: .sandbox, nowSeconds: now) == .failure(.badCertificateEnvironment))
        #expect(sandbox.rejection(environment: .sandbox, nowSeconds: now) == nil)
        #expect(universal.rejection(environment: .production, nowSeconds: now) == nil)
    }

    @Test("expired or not yet valid is BadCertificate")
    func validity() throws {
        let certificate = try issue(["com.example.app"])
        #expect(certificate.rejection(environment: .sandbox, nowSeconds: now - 86_400) == .badCertificate)
        #expect(certificate.rejection(environment: .sandbox, nowSeconds: now + 366 * 86_400) == .badCertificate)
        #expect(certificate.authorize(topic: "com.example.app", environment: .sandbox, nowSeconds: now + 366 * 86_400) == .failure(.badCertificate))
    }

    @Test("bytes that are not a certificate are a CredentialError")
    func invalid() {
        #expect(throws: CredentialError.invalidCertificate) { try ProviderCertificate(derBytes: [0x30, 0x03, 0x02, 0x01, 0x01]) }
        #expect(throws: CredentialError.invalidCertificate) { try ProviderCertificate(pemEncoded: "nope") }
    }

    @Test("a certificate with only a subject UID has that one topic; with only an Apple-style CN, the CN's topic")
    func uidAndCommonName() throws {
        let key = P256.Signing.PrivateKey()
        func make(_ subject: DistinguishedName) throws -> ProviderCertificate {
            ProviderCertificate(
                try Certificate(
                    version: .v3,
                    serialNumber: .init(),
                    publicKey: .init(key.publicKey),
                    notValidBefore: Self.date(now - 10),
                    notValidAfter: Self.date(now + 10),
                    issuer: subject,
                    subject: subject,
                    signatureAlgorithm: .ecdsaWithSHA256,
                    extensions: Certificate.Extensions(),
                    issuerPrivateKey: .init(key)
                )
            )
        }
        let uid = try make(DistinguishedName([RelativeDistinguishedName(.init(type: AppleCertificateOID.userID, utf8String: "com.example.uid"))]))
        #expect(uid.topics == ["com.example.uid"])
        #expect(uid.environments == .both)
        let commonName = try make(try DistinguishedName { CommonName("Apple Push Services: com.example.cn") })
        #expect(commonName.topics == ["com.example.cn"])
        let nothing = try make(try DistinguishedName { CommonName("someone") })
        #expect(nothing.topics.isEmpty)
        #expect(nothing.authorize(topic: nil, environment: .sandbox, nowSeconds: now) == .failure(.missingTopic))
        #expect(nothing.authorize(topic: "com.example.app", environment: .sandbox, nowSeconds: now) == .failure(.topicDisallowed))
    }

    @Test("extension value variants are read liberally")
    func extensionVariants() throws {
        let apple = Array(try DevelopmentCertificateAuthority.topicsExtensionValue(["com.a", "com.a.voip"]))
        #expect(ProviderCertificate.topics(inExtensionValue: apple) == ["com.a", "com.a.voip"])

        // Wrapped once more in an OCTET STRING (what some tools write).
        var wrapped = DER.Serializer()
        try wrapped.serialize(ASN1OctetString(contentBytes: apple[...]))
        #expect(ProviderCertificate.topics(inExtensionValue: wrapped.serializedBytes) == ["com.a", "com.a.voip"])

        // Pairs nested as SEQUENCE { topic, SEQUENCE { labels } }, in a SET.
        var pairs = DER.Serializer()
        try pairs.appendConstructedNode(identifier: .set) { coder in
            for topic in ["com.b", "com.b.complication"] {
                try coder.appendConstructedNode(identifier: .sequence) { pair in
                    try pair.serialize(ASN1UTF8String(topic))
                    try pair.appendConstructedNode(identifier: .sequence) { try $0.serialize(ASN1UTF8String("app")) }
                }
            }
        }
        #expect(ProviderCertificate.topics(inExtensionValue: pairs.serializedBytes) == ["com.b", "com.b.complication"])

        // A lone string, and garbage.
        var lone = DER.Serializer()
        try lone.serialize(ASN1UTF8String("com.c"))
        #expect(ProviderCertificate.topics(inExtensionValue: lone.serializedBytes) == ["com.c"])
        #expect(ProviderCertificate.topics(inExtensionValue: [0xFF, 0x00, 0x12]).isEmpty)
    }

    @Test("a certificate made by OpenSSL with Apple's topic extension config is read", .enabled(if: Tool.hasOpenSSL))
    func openSSLInterop() throws {
        let directory = try TemporaryDirectory()
        let config = directory.url.appendingPathComponent("apns.cnf")
        try """
        [ req ]
        distinguished_name = dn
        prompt = no
        x509_extensions = ext
        [ dn ]
        UID = com.example.pushy
        CN = Apple Push Services: com.example.pushy
        [ ext ]
        1.2.840.113635.100.6.3.1 = ASN1:NULL
        1.2.840.113635.100.6.3.6 = ASN1:SEQUENCE:apns_topics
        [ apns_topics ]
        t.0 = UTF8String:com.example.pushy
        t.1 = SEQWRAP,UTF8String:app
        t.2 = UTF8String:com.example.pushy.voip
        t.3 = SEQWRAP,UTF8String:voip
        t.4 = UTF8String:com.example.pushy.complication
        t.5 = SEQWRAP,UTF8String:complication
        """.write(to: config, atomically: true, encoding: .utf8)
        let certificateFile = directory.url.appendingPathComponent("cert.pem")
        let output = try Tool.run(
            "openssl",
            [
                "req", "-x509", "-newkey", "ec", "-pkeyopt", "ec_paramgen_curve:P-256", "-nodes", "-days", "2",
                "-keyout", directory.url.appendingPathComponent("key.pem").path, "-out", certificateFile.path, "-config", config.path,
            ]
        )
        #expect(output.status == 0, "\(output.text)")
        let certificate = try ProviderCertificate(pemEncoded: try String(contentsOf: certificateFile, encoding: .utf8))
        #expect(certificate.topics == ["com.example.pushy", "com.example.pushy.voip", "com.example.pushy.complication"])
        #expect(certificate.environments == .sandbox)
        let current = Int64(Date().timeIntervalSince1970)
        #expect(certificate.authorize(topic: nil, environment: .sandbox, nowSeconds: current) == .failure(.missingTopic))
        #expect(certificate.authorize(topic: "com.example.pushy.voip", environment: .sandbox, nowSeconds: current).isSuccess)
        #expect(certificate.rejection(environment: .production, nowSeconds: current) == .badCertificateEnvironment)
    }

    @Test("a certificate connection ignores authorization and fills in the default topic")
    func certificateConnection() throws {
        let single = try issue(["com.example.app"], .sandbox)
        var connection = ConnectionAuthentication(environment: .sandbox, clientCertificate: single)
        #expect(connection.usesCertificate && connection.isAuthenticated)
        let verifier = ProviderTokenVerifier()
        let decision = connection.authorize(authorization: "bearer junk", topic: nil, bundleID: nil, verifier: verifier, nowSeconds: now)
        #expect(decision.isAccepted)
        #expect(decision.topic == "com.example.app")
        #expect(!decision.isFirstValidToken)
        #expect(verifier.statistics.signatureVerifications == 0)
        #expect(connection.authorize(topic: "com.example.other", nowSeconds: now).rejection == .topicDisallowed)

        var wrongEnvironment = ConnectionAuthentication(environment: .production, clientCertificate: single)
        #expect(wrongEnvironment.authorize(topic: nil, nowSeconds: now).rejection == .badCertificateEnvironment)
        let viaToken = wrongEnvironment.authorize(
            token: .failure(.missing),
            topic: "com.example.app",
            bundleID: nil,
            nowSeconds: now
        )
        #expect(viaToken.rejection == .badCertificateEnvironment)
    }
}

extension Result where Failure == APNSReason {
    var isSuccess: Bool {
        if case .success = self { return true }
        return false
    }
}
