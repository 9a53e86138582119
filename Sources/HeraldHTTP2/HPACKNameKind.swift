/// What a request's field name is to HTTP/2's message rules (RFC 9113 §8.2, §8.3), worked out once per name.
///
/// Why a kind and not the name: the decoder already has every name in hand (and table entries keep their kind), so
/// the connection checks a request's fields by a byte compare, not by reading names again.
public enum HPACKNameKind: UInt8, Sendable {
    /// A lowercase field name that is not connection-specific.
    case regular
    /// `te`: allowed only with the value `trailers` (§8.2.2).
    case te
    /// `content-length`: must equal the sum of the DATA payloads (§8.1.1).
    case contentLength
    /// A name a request may not carry: upper case or other invalid octets (§8.2.1), a connection-specific field
    /// (§8.2.2), or a pseudo-header that is unknown or belongs to responses (§8.3).
    case malformed
    /// `:method`.
    case method
    /// `:scheme`.
    case scheme
    /// `:authority`.
    case authority
    /// `:path`.
    case path

    /// Whether this is one of the request pseudo-header fields (§8.3.1).
    public var isPseudo: Bool { rawValue >= HPACKNameKind.method.rawValue }

    /// The kind of a field name given as octets.
    public init(name: some Collection<UInt8>) {
        guard let first = name.first else {
            self = .malformed
            return
        }
        // §8.2.1: no octet in 0x00-0x20, 0x41-0x5A (upper case) or 0x7F-0xFF; a colon only to start a pseudo-header.
        for (offset, byte) in name.enumerated() {
            let invalid = byte <= 0x20 || (byte >= 0x41 && byte <= 0x5A) || byte >= 0x7F || (byte == UInt8(ascii: ":") && offset > 0)
            if invalid {
                self = .malformed
                return
            }
        }
        if first == UInt8(ascii: ":") {
            switch name.count {
            case 5 where name.elementsEqual(":path".utf8): self = .path
            case 7 where name.elementsEqual(":method".utf8): self = .method
            case 7 where name.elementsEqual(":scheme".utf8): self = .scheme
            case 10 where name.elementsEqual(":authority".utf8): self = .authority
            default: self = .malformed
            }
            return
        }
        switch name.count {
        case 2 where name.elementsEqual("te".utf8): self = .te
        case 14 where name.elementsEqual("content-length".utf8): self = .contentLength
        // §8.2.2: connection-specific fields make a request malformed.
        case 7 where name.elementsEqual("upgrade".utf8),
            10 where name.elementsEqual("connection".utf8) || name.elementsEqual("keep-alive".utf8),
            16 where name.elementsEqual("proxy-connection".utf8),
            17 where name.elementsEqual("transfer-encoding".utf8):
            self = .malformed
        default: self = .regular
        }
    }
}
