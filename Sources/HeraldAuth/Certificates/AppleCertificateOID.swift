import SwiftASN1

/// Object identifiers of Apple's push certificates (spec §A.3, §A.8).
public enum AppleCertificateOID {
    /// `1.2.840.113635.100.6.3.1`: the certificate works in the development (sandbox) environment.
    public static let development: ASN1ObjectIdentifier = [1, 2, 840, 113_635, 100, 6, 3, 1]
    /// `1.2.840.113635.100.6.3.2`: the certificate works in the production environment.
    public static let production: ASN1ObjectIdentifier = [1, 2, 840, 113_635, 100, 6, 3, 2]
    /// `1.2.840.113635.100.6.3.4`: the VoIP services topic list.
    public static let voipTopics: ASN1ObjectIdentifier = [1, 2, 840, 113_635, 100, 6, 3, 4]
    /// `1.2.840.113635.100.6.3.6`: "list all the push topics allowed for your certificate" (spec §A.3).
    public static let topics: ASN1ObjectIdentifier = [1, 2, 840, 113_635, 100, 6, 3, 6]
    /// `0.9.2342.19200300.100.1.1`: the subject's UID attribute, the topic of a single-topic certificate.
    public static let userID: ASN1ObjectIdentifier = [0, 9, 2342, 19_200_300, 100, 1, 1]
}
