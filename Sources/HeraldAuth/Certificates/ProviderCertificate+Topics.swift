import Foundation
import SwiftASN1
import X509

extension ProviderCertificate {
    /// The topics a certificate allows, in order: the subject UID first, then those the topic extensions list.
    ///
    /// A certificate with neither gets the text after `Push Services: ` in its common name, as Apple's
    /// `Apple Push Services: com.example.app` names read, so an unusual certificate still names a topic.
    static func topics(of certificate: Certificate) -> [String] {
        var found: [String] = []
        func add(_ topic: String) {
            let topic = topic.trimmingCharacters(in: .whitespaces)
            if !topic.isEmpty, !found.contains(topic) { found.append(topic) }
        }
        if let uid = attribute(AppleCertificateOID.userID, in: certificate.subject) { add(uid) }
        for oid in [AppleCertificateOID.topics, AppleCertificateOID.voipTopics] {
            if let value = certificate.extensions[oid: oid]?.value {
                for topic in topics(inExtensionValue: Array(value)) { add(topic) }
            }
        }
        if found.isEmpty, let commonName = attribute(ASN1ObjectIdentifier.RDNAttributeType.commonName, in: certificate.subject),
            let marker = commonName.range(of: "Push Services: ")
        {
            add(String(commonName[marker.upperBound...]))
        }
        return found
    }

    /// Reads the topic names of an `…6.3.6` (or `…6.3.4`) extension value.
    ///
    /// Apple's form, as OpenSSL writes it for test certificates (pushy's `ApnsTestCertificates` documents the config),
    /// is one SEQUENCE alternating a UTF8String topic and a SEQUENCE of UTF8String push-type labels:
    /// `SEQUENCE { "com.example.app", SEQUENCE { "app" }, "com.example.app.voip", SEQUENCE { "voip" }, … }`.
    /// Herald reads it liberally: BER as well as DER, an extra OCTET STRING wrapper, a SET instead of a SEQUENCE,
    /// Printable/IA5 strings, pairs nested as `SEQUENCE { topic, SEQUENCE { labels } }`, and a lone string.
    /// Label sequences (strings only) are skipped, since labels such as `app` are not topics.
    static func topics(inExtensionValue bytes: [UInt8]) -> [String] {
        guard let root = try? BER.parse(bytes) else { return [] }
        return topics(in: root, depth: 0)
    }

    private static func topics(in node: ASN1Node, depth: Int) -> [String] {
        guard depth < 4 else { return [] }
        if let text = string(node) { return [text] }
        switch node.content {
        case .primitive(let bytes):
            // An OCTET STRING wrapping the real value (some tools add one more layer).
            guard node.identifier == .octetString, let inner = try? BER.parse(bytes) else { return [] }
            return topics(in: inner, depth: depth + 1)
        case .constructed(let children):
            guard node.identifier == .sequence || node.identifier == .set else { return [] }
            var topics: [String] = []
            for child in children {
                if let text = string(child) {
                    topics.append(text)
                } else if case .constructed(let grandchildren) = child.content, child.identifier == .sequence {
                    // `SEQUENCE { topic, SEQUENCE { labels } }` pairs; a label list alone (all strings) is skipped.
                    let members = Array(grandchildren)
                    if members.count >= 2, let topic = string(members[0]), members.dropFirst().contains(where: { string($0) == nil }) {
                        topics.append(topic)
                    }
                }
            }
            return topics
        }
    }

    private static func string(_ node: ASN1Node) -> String? {
        guard case .primitive(let bytes) = node.content,
            node.identifier == .utf8String || node.identifier == .printableString || node.identifier == .ia5String
        else { return nil }
        return String(validating: bytes, as: UTF8.self)
    }

    private static func attribute(_ oid: ASN1ObjectIdentifier, in name: DistinguishedName) -> String? {
        for relativeName in name {
            for attribute in relativeName where attribute.type == oid {
                if let text = String(attribute.value) { return text }
            }
        }
        return nil
    }
}
