/// Rules for `apns-topic` values (spec §A.2, §A.3).
public enum Topic {
    /// Whether a topic is well formed: a bundle-id-like string of letters, digits, `.`, `-` and `_`, 1–255 bytes.
    public static func isWellFormed(_ topic: String) -> Bool {
        guard (1...255).contains(topic.utf8.count) else { return false }
        return topic.utf8.allSatisfy { byte in
            switch byte {
            case UInt8(ascii: "a")...UInt8(ascii: "z"), UInt8(ascii: "A")...UInt8(ascii: "Z"),
                UInt8(ascii: "0")...UInt8(ascii: "9"), UInt8(ascii: "."), UInt8(ascii: "-"), UInt8(ascii: "_"):
                return true
            default:
                return false
            }
        }
    }

    /// The push type and bundle id a topic stands for, checked against the `apns-push-type` header.
    ///
    /// Without a header the topic's suffix decides (alert when it has none). With one, the topic must carry that
    /// type's suffix; APNs is observed to answer `InvalidPushType` on a mismatch (spec §A.3, [S35]).
    public static func resolve(_ topic: String, pushType: PushType?) -> Result<(PushType, String), APNSReason> {
        guard isWellFormed(topic) else { return .failure(.badTopic) }
        let type = pushType ?? PushType.inferred(fromTopic: topic)
        if type == .mdm { return .success((type, topic)) }
        guard let bundleID = type.bundleID(fromTopic: topic) else { return .failure(.invalidPushType) }
        if type.topicSuffix == "" {
            // An alert or background push addressed to a topic with another type's suffix (e.g. `.voip`).
            if PushType.knownTopicSuffixes.contains(where: { topic.hasSuffix($0) }) { return .failure(.invalidPushType) }
        }
        return .success((type, bundleID))
    }
}
