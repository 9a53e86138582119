import Foundation

/// A `.apns` file, as `xcrun simctl push` reads it: a JSON payload whose top-level `"Simulator Target Bundle"` key
/// names the app it is for.
///
/// That key is not part of the notification: ``payload`` is the file without it, byte for byte otherwise (key
/// order, spacing and numbers as written), so what is sent is what the file says.
public struct APNSFile: Sendable, Hashable {
    /// The key Xcode's simulator reads for the target app.
    public static let targetBundleKey = "Simulator Target Bundle"

    /// The payload to send: the document less its `"Simulator Target Bundle"` member.
    public var payload: [UInt8]
    /// The app (bundle id) the file is for, when it names one.
    public var targetBundle: String?
    /// The payload's top-level object, parsed.
    public var object: JSONObject

    /// Reads a payload; a `"Simulator Target Bundle"` key is optional.
    ///
    /// - Throws: ``ParseError`` when the bytes are not one JSON object or the target bundle is not a string.
    public init(bytes: some Collection<UInt8>) throws(ParseError) {
        var bytes = Array(bytes)
        let value: JSONValue
        do {
            value = try JSONParser.parse(bytes)
        } catch {
            throw ParseError("not JSON: \(error)")
        }
        guard var object = value.objectValue else { throw ParseError("not a JSON object") }
        var targetBundle: String?
        if let target = object[Self.targetBundleKey] {
            guard let name = target.stringValue else { throw ParseError("\"\(Self.targetBundleKey)\" is not a string") }
            targetBundle = name
            while let member = Self.topLevelMembers(of: bytes).first(where: { $0.key == Self.targetBundleKey }) {
                bytes.removeSubrange(member.removal)
            }
            object = JSONObject(object.members.filter { $0.key != Self.targetBundleKey }.map { ($0.key, $0.value) })
        }
        self.payload = bytes
        self.targetBundle = targetBundle
        self.object = object
    }

    /// Reads a `.apns` (or any JSON payload) file.
    ///
    /// - Throws: ``ParseError`` when it cannot be read or parsed.
    public init(contentsOf file: URL) throws(ParseError) {
        let data: Data
        do {
            data = try Data(contentsOf: file)
        } catch {
            throw ParseError("cannot read \(file.path)")
        }
        try self.init(bytes: data)
    }

    /// Why a payload could not be read.
    public struct ParseError: Error, Hashable, Sendable, CustomStringConvertible {
        /// What was wrong, for a person.
        public let description: String

        init(_ description: String) {
            self.description = description
        }
    }
}

extension APNSFile {
    /// A member of the document's top-level object and the bytes to cut to remove it (with one comma).
    struct Member {
        var key: String
        var removal: Range<Int>
    }

    /// The members of a valid JSON object document, in order.
    static func topLevelMembers(of bytes: [UInt8]) -> [Member] {
        let spans = JSONMemberScanner(bytes).map { member in
            (key: JSONMemberScanner.name(of: member, in: bytes), start: member.name.lowerBound, end: member.value.upperBound)
        }
        return spans.indices.map { position in
            let span = spans[position]
            if position + 1 < spans.count { return Member(key: span.key, removal: span.start..<spans[position + 1].start) }
            if position > 0 { return Member(key: span.key, removal: spans[position - 1].end..<span.end) }
            return Member(key: span.key, removal: span.start..<span.end)
        }
    }
}
