import Crypto

/// One file of the web console as the server sends it: its bytes, content type and entity tag.
public struct ConsoleAsset: Sendable, Hashable {
    /// The file's name in `Sources/HeraldConsole/Assets/`, e.g. `console.js`.
    public let name: String
    /// The file's bytes, as built into the binary.
    public let bytes: [UInt8]
    /// The `content-type` to send: the media type from the file's extension, UTF-8 for text.
    public let contentType: String
    /// A strong entity tag (RFC 9110 §8.8.3): the first 128 bits of the bytes' SHA-256 in hex, quoted.
    ///
    /// It changes whenever the file does, so a browser that revalidates (`cache-control: no-cache`) gets `304` until a
    /// new binary serves new bytes.
    public let entityTag: String

    /// An asset from a file's name and bytes; the content type comes from the extension (`application/octet-stream`
    /// for one it does not know).
    public init(name: String, bytes: [UInt8]) {
        self.name = name
        self.bytes = bytes
        self.contentType = Self.contentType(forName: name)
        let digest = SHA256.hash(data: bytes).prefix(16)
        self.entityTag = "\"" + digest.map { byte in String(byte, radix: 16).leftPadded(to: 2) }.joined() + "\""
    }

    /// The content type of a file name's extension.
    static func contentType(forName name: String) -> String {
        switch name.split(separator: ".").last {
        case "html": "text/html; charset=utf-8"
        case "css": "text/css; charset=utf-8"
        case "js", "mjs": "text/javascript; charset=utf-8"
        case "svg": "image/svg+xml"
        case "json": "application/json"
        default: "application/octet-stream"
        }
    }

    /// Whether an `If-None-Match` field's value matches this asset, so a `304` may answer (RFC 9110 §13.1.2): `*`, or a
    /// comma-separated list with this tag, compared weakly (a `W/` prefix is ignored).
    public func isMatched(byIfNoneMatch value: String) -> Bool {
        value.split(separator: ",").contains { candidate in
            var tag = candidate.trimmingWhitespace()
            if tag == "*" { return true }
            if tag.hasPrefix("W/") { tag = tag.dropFirst(2) }
            return tag == entityTag
        }
    }
}

extension String {
    fileprivate func leftPadded(to width: Int) -> String {
        count >= width ? self : String(repeating: "0", count: width - count) + self
    }
}

extension Substring {
    fileprivate func trimmingWhitespace() -> Substring {
        let isSpace: (Character) -> Bool = { $0 == " " || $0 == "\t" }
        guard let first = firstIndex(where: { !isSpace($0) }), let last = lastIndex(where: { !isSpace($0) }) else { return "" }
        return self[first...last]
    }
}
