import Foundation
import HeraldCore
import HeraldTestSupport
import HeraldTestTiers
import Testing
import X509

@testable import HeraldAuth

@Suite("Development PKI", .tier(.unit))
struct DevelopmentPKITests {
    let now = Date(timeIntervalSince1970: TimeInterval(AuthFixtures.now))

    func permissions(_ url: URL) throws -> Int? {
        try FileManager.default.attributesOfItem(atPath: url.path)[.posixPermissions] as? Int
    }

    @Test("create writes the four PEM files, keys 0600, in standard PEM forms")
    func create() throws {
        let directory = try TemporaryDirectory()
        let pki = try DevelopmentPKI.create(in: directory.url.appendingPathComponent("tls"), now: now)
        let files = pki.files
        #expect(files.caCertificate.lastPathComponent == "ca.pem")
        #expect(files.serverPrivateKey.lastPathComponent == "server-key.pem")
        for file in [files.caCertificate, files.serverCertificate] {
            #expect(try String(contentsOf: file, encoding: .utf8).hasPrefix("-----BEGIN CERTIFICATE-----\n"))
            #expect(try permissions(file) == 0o644)
        }
        for file in [files.caPrivateKey, files.serverPrivateKey] {
            #expect(try String(contentsOf: file, encoding: .utf8).hasPrefix("-----BEGIN PRIVATE KEY-----\n"))
            #expect(try permissions(file) == 0o600)
        }
        let ca = pki.authority.root.certificate
        #expect(ca.notValidAfter.timeIntervalSince(now) > 9.9 * 365 * 86_400)
        #expect(ca.subject == ca.issuer)
    }

    @Test("load reads back the same set")
    func load() throws {
        let directory = try TemporaryDirectory()
        let created = try DevelopmentPKI.create(in: directory.url, now: now)
        let loaded = try DevelopmentPKI.load(from: directory.url)
        #expect(loaded == created)
        #expect(throws: CredentialError.missingFile) { try DevelopmentPKI.load(from: directory.url.appendingPathComponent("empty")) }
    }

    @Test("a key file that does not match its certificate is refused")
    func mismatchedKey() throws {
        let directory = try TemporaryDirectory()
        let pki = try DevelopmentPKI.create(in: directory.url, now: now)
        try FileManager.default.removeItem(at: pki.files.serverPrivateKey)
        try FileManager.default.copyItem(at: pki.files.caPrivateKey, to: pki.files.serverPrivateKey)
        #expect(throws: CredentialError.invalidPrivateKey) { try DevelopmentPKI.load(from: directory.url) }
    }

    @Test("loadOrCreate creates once, then loads; it renews a server certificate near expiry with the same CA")
    func loadOrCreate() throws {
        let directory = try TemporaryDirectory()
        let first = try DevelopmentPKI.loadOrCreate(in: directory.url, now: now)
        let again = try DevelopmentPKI.loadOrCreate(in: directory.url, now: now + 86_400)
        #expect(again == first)
        let later = now + 800 * 86_400
        let renewed = try DevelopmentPKI.loadOrCreate(in: directory.url, now: later)
        #expect(renewed.authority == first.authority)
        #expect(renewed.server != first.server)
        #expect(renewed.server.certificate.notValidAfter > later + 86_400 * 700)
        #expect(try DevelopmentPKI.load(from: directory.url) == renewed)
    }

    @Test("the server certificate names localhost, 127.0.0.1 and ::1 for serverAuth")
    func serverCertificate() throws {
        let directory = try TemporaryDirectory()
        let server = try DevelopmentPKI.create(in: directory.url, now: now).server.certificate
        let names = try #require(try server.extensions.subjectAlternativeNames)
        #expect(names.contains(.dnsName("localhost")))
        #expect(names.contains(.ipAddress(.init(contentBytes: [127, 0, 0, 1]))))
        #expect(names.contains(.ipAddress(.init(contentBytes: [0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 1]))))
        #expect(try server.extensions.extendedKeyUsage?.contains(.serverAuth) == true)
        #expect(try server.extensions.basicConstraints == .notCertificateAuthority)
    }

    @Test("OpenSSL verifies the server and provider certificates against ca.pem", .enabled(if: Tool.hasOpenSSL))
    func openSSLVerify() throws {
        let directory = try TemporaryDirectory()
        let pki = try DevelopmentPKI.create(in: directory.url, now: Date())
        let files = pki.files
        let server = try Tool.run("openssl", ["verify", "-purpose", "sslserver", "-CAfile", files.caCertificate.path, files.serverCertificate.path])
        #expect(server.status == 0, "\(server.text)")
        #expect(server.text.contains(": OK"))

        let provider = try pki.issueProviderCertificate(
            topics: ["com.example.app", "com.example.app.voip"],
            environments: .sandbox,
            teamID: AuthFixtures.teamID,
            named: "provider",
            in: directory.url,
            now: Date()
        )
        #expect(try permissions(provider.privateKeyFile) == 0o600)
        let client = try Tool.run("openssl", ["verify", "-purpose", "sslclient", "-CAfile", files.caCertificate.path, provider.certificateFile.path])
        #expect(client.status == 0, "\(client.text)")

        let text = try Tool.run("openssl", ["x509", "-in", files.serverCertificate.path, "-noout", "-text"]).text
        #expect(text.contains("DNS:localhost"))
        #expect(text.contains("IP Address:127.0.0.1"))
        #expect(text.contains("IP Address:0:0:0:0:0:0:0:1"))
        #expect(text.contains("TLS Web Server Authentication"))
        #expect(text.contains("ecdsa-with-SHA256"))

        let providerText = try Tool.run("openssl", ["x509", "-in", provider.certificateFile.path, "-noout", "-text", "-nameopt", "RFC2253"]).text
        #expect(providerText.contains("UID=com.example.app"))
        #expect(providerText.contains("1.2.840.113635.100.6.3.6"))
        #expect(providerText.contains("1.2.840.113635.100.6.3.1"))
        #expect(!providerText.contains("1.2.840.113635.100.6.3.2"))
        #expect(providerText.contains("TLS Web Client Authentication"))

        for key in [files.caPrivateKey, files.serverPrivateKey, provider.privateKeyFile] {
            #expect(try Tool.run("openssl", ["pkey", "-in", key.path, "-noout"]).status == 0)
        }
    }

    @Test("an issued provider certificate reads back with its topics, environment and team")
    func providerRoundTrip() throws {
        let authority = try DevelopmentCertificateAuthority.generate(now: now)
        let issued = try authority.issueProviderCertificate(topics: ["com.example.app"], environments: .production, now: now)
        let reread = try IssuedCertificate(certificatePEM: issued.certificatePEM, privateKeyPEM: issued.privateKeyPEM)
        #expect(reread == issued)
        let certificate = ProviderCertificate(reread.certificate)
        #expect(certificate.topics == ["com.example.app"])
        #expect(certificate.environments == .production)
        #expect(throws: CredentialError.invalidCertificate) {
            try authority.issueProviderCertificate(topics: [], now: now)
        }
    }

    @Test("IP literals are recognised, host names are not")
    func ipAddresses() {
        #expect(DevelopmentCertificateAuthority.ipAddressBytes("127.0.0.1") == [127, 0, 0, 1])
        #expect(DevelopmentCertificateAuthority.ipAddressBytes("::1")?.count == 16)
        #expect(DevelopmentCertificateAuthority.ipAddressBytes("localhost") == nil)
    }
}
