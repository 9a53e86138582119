/// The message rules of RFC 9113 §8 for one header block of a request, applied field by field as it is decoded.
///
/// Why a value of its own: the rules are pure and tested on fields, and the connection only asks for the outcome.
/// Each field costs a few comparisons of its precomputed `HPACKNameKind`; nothing is allocated.
public struct HTTP2HeaderListCheck: Sendable {
    /// What the connection does with the request.
    public enum Outcome: Equatable, Sendable {
        /// The request may be served.
        case valid
        /// Malformed (§8.1.1): a stream error of type PROTOCOL_ERROR.
        case malformed
        /// Above the SETTINGS_MAX_HEADER_LIST_SIZE we advertised: answered `431` (§10.5.1).
        case tooLarge
    }

    /// SETTINGS_MAX_HEADER_LIST_SIZE as advertised.
    public let maximumListSize: Int
    /// A second header block on a stream: a trailer section, where pseudo-headers are not allowed (§8.1).
    public let isTrailers: Bool
    /// The header list size so far: decoded names and values plus 32 octets a field (§6.5.2).
    public private(set) var listSize = 0
    /// The request's `content-length`, which the DATA payloads must add up to (§8.1.1); nil when not sent.
    public private(set) var contentLength: Int?
    private var pseudoSeen: UInt8 = 0
    private var regularSeen = false
    private var malformed = false

    /// A check for one header block.
    public init(maximumListSize: Int, isTrailers: Bool) {
        self.maximumListSize = maximumListSize
        self.isTrailers = isTrailers
    }

    /// Whether the fields so far still fit the advertised list size (the connection keeps no value beyond it).
    public var withinListSize: Bool { listSize <= maximumListSize }

    /// Applies the rules to the next decoded field.
    public mutating func add(_ field: HPACKField) {
        listSize += field.size
        switch field.nameKind {
        case .regular:
            regularSeen = true
        case .te:
            regularSeen = true
            // §8.2.2: `te` may be sent only with the value "trailers".
            if (try? field.value.decodedBytes())?.elementsEqual("trailers".utf8) != true { malformed = true }
        case .contentLength:
            regularSeen = true
            // §8.1.1 with RFC 9110 §8.6: one decimal length; a value that is not one, or a second that differs, makes
            // the request malformed (the body could not be checked against it). In trailers it means nothing.
            guard !isTrailers else { break }
            guard let length = Self.decimal(field.value), contentLength ?? length == length else {
                malformed = true
                break
            }
            contentLength = length
        case .malformed:
            malformed = true
        case .method, .scheme, .authority, .path:
            let bit: UInt8 = 1 << (field.nameKind.rawValue - HPACKNameKind.method.rawValue)
            // §8.3: pseudo-headers come before every regular field, at most once each, and never in trailers.
            if isTrailers || regularSeen || pseudoSeen & bit != 0 { malformed = true }
            pseudoSeen |= bit
            // §8.3.1: `:path` must not be empty for "http" or "https" URIs (the provider API serves no other).
            if field.nameKind == .path, (try? field.value.decodedLength()) ?? 0 == 0 { malformed = true }
        }
    }

    /// A `content-length` value, read where it lies (only a Huffman-coded one is decoded first).
    private static func decimal(_ value: HPACKString) -> Int? {
        switch value.storage {
        case .text(let text): decimal(text.utf8)
        case .bytes(let bytes): decimal(bytes)
        case .encoded(let buffer, huffman: false): decimal(buffer.readableBytesView)
        case .encoded(_, huffman: true): (try? value.decodedBytes()).flatMap { decimal($0) }
        }
    }

    /// ASCII digits only, at most 18 of them (RFC 9110 §8.6); nil otherwise.
    private static func decimal(_ octets: some Collection<UInt8>) -> Int? {
        guard !octets.isEmpty, octets.count <= 18 else { return nil }
        var value = 0
        for octet in octets {
            guard octet >= UInt8(ascii: "0"), octet <= UInt8(ascii: "9") else { return nil }
            value = value * 10 + Int(octet - UInt8(ascii: "0"))
        }
        return value
    }

    /// The verdict once the whole block is decoded.
    public var outcome: Outcome {
        guard withinListSize else { return .tooLarge }
        guard !malformed else { return .malformed }
        // §8.3.1: a request carries :method, :scheme and :path (CONNECT aside, which the provider API does not serve).
        let required: UInt8 = 1 << 0 | 1 << 1 | 1 << 3
        if !isTrailers, pseudoSeen & required != required { return .malformed }
        return .valid
    }
}
