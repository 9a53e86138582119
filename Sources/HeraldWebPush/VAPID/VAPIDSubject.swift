/// The rules for a VAPID `sub` claim: the contact Apple requires, a `mailto:` address or an `https:` URL (spec §A.12).
///
/// Refused, each with its own rule: a space or other whitespace anywhere, angle brackets (`mailto: <ops@example.com>`,
/// [S46]), a `mailto:` at `localhost` ([S46]), a scheme other than `mailto:` or `https:`. Herald's choices where
/// Apple is silent *(chosen)*: the scheme's case is free; a `mailto:` needs `name@domain` (not `mailto://…`); an
/// `https:` URL needs a host, which may not be `localhost`, a name under `.localhost` or a loopback address — the same
/// rule as for `mailto:`, since neither reaches the sender.
public enum VAPIDSubject {
    /// Checks `subject`; `nil` when it passes, otherwise the refusal (naming the subject).
    public static func check(_ subject: String) -> WebPushRefusal? {
        let quoted = WebPushRefusal.quoted(subject)
        func refusal(_ rule: WebPushRefusal.Rule, _ why: String) -> WebPushRefusal {
            WebPushRefusal(rule: rule, explanation: "VAPID sub \(quoted): \(why)", subject: subject)
        }
        guard !subject.isEmpty else { return refusal(.vapidSubjectNotContact, "empty; it must be a mailto: address or an https: URL") }
        if subject.unicodeScalars.contains(where: { $0.properties.isWhitespace }) {
            return refusal(.vapidSubjectSpace, "a space is refused")
        }
        if subject.contains("<") || subject.contains(">") {
            return refusal(.vapidSubjectAngleBrackets, "angle brackets are refused; write mailto:name@domain")
        }
        let lowered = subject.lowercased()
        if lowered.hasPrefix("mailto:") {
            let address = lowered.dropFirst("mailto:".count)
            if address.hasPrefix("//") {
                return refusal(.vapidSubjectNotContact, "mailto: is followed by //; a mailto address is mailto:name@domain")
            }
            let addressPart = address.prefix { $0 != "?" }
            guard let at = addressPart.lastIndex(of: "@"), at != addressPart.startIndex, addressPart.index(after: at) != addressPart.endIndex
            else { return refusal(.vapidSubjectNotContact, "not a mailto address of the form mailto:name@domain") }
            if isLocalhost(addressPart[addressPart.index(after: at)...]) {
                return refusal(.vapidSubjectAtLocalhost, "a mailto at localhost is refused")
            }
            return nil
        }
        if lowered.hasPrefix("https:") {
            guard lowered.hasPrefix("https://") else { return refusal(.vapidSubjectNotContact, "an https: URL needs // and a host") }
            let authority = lowered.dropFirst("https://".count).prefix { $0 != "/" && $0 != "?" && $0 != "#" }
            let hostAndPort = authority.split(separator: "@", omittingEmptySubsequences: false).last ?? ""
            let host: Substring
            if hostAndPort.hasPrefix("[") {
                host = hostAndPort.prefix { $0 != "]" }.dropFirst()
            } else {
                host = hostAndPort.prefix { $0 != ":" }
            }
            guard !host.isEmpty else { return refusal(.vapidSubjectNotContact, "an https: URL without a host") }
            if isLocalhost(host) { return refusal(.vapidSubjectAtLocalhost, "an https URL at localhost is refused") }
            return nil
        }
        return refusal(.vapidSubjectNotContact, "neither a mailto: address nor an https: URL")
    }

    /// `localhost`, a name under `.localhost` (RFC 6761 §6.3), `127.x.y.z` or `::1`.
    private static func isLocalhost(_ host: Substring) -> Bool {
        let host = host.hasSuffix(".") ? host.dropLast() : host
        if host == "localhost" || host.hasSuffix(".localhost") || host == "::1" { return true }
        let octets = host.split(separator: ".", omittingEmptySubsequences: false)
        return octets.count == 4 && octets[0] == "127" && octets.allSatisfy { UInt8($0) != nil }
    }
}
