import HeraldCore
import NIOCore

/// An octet string of a header block: text already made, bytes already decoded, or still encoded.
///
/// Why three forms: the fields Herald reads become `String` once (and, from the dynamic table, never again); the
/// fields it ignores stay a slice of the block and are decoded only if someone asks (tests do, the server does not).
public struct HPACKString: Sendable {
    /// The string's form.
    public enum Storage: Sendable {
        /// Decoded, as text.
        case text(String)
        /// Decoded octets.
        case bytes([UInt8])
        /// A slice of the header block, Huffman-coded or not (RFC 7541 §5.2).
        case encoded(ByteBuffer, huffman: Bool)
    }

    /// The string's form.
    public var storage: Storage

    /// A string in the given form.
    public init(storage: Storage) {
        self.storage = storage
    }

    /// The decoded octets.
    public func decodedBytes() throws(HPACKError) -> [UInt8] {
        switch storage {
        case .text(let text): return Array(text.utf8)
        case .bytes(let bytes): return bytes
        case .encoded(let buffer, let huffman):
            guard huffman else { return Array(buffer.readableBytesView) }
            var output: [UInt8] = []
            output.reserveCapacity(buffer.readableBytes * 8 / 5)
            try HPACKHuffman.decode(buffer.readableBytesView, into: &output)
            return output
        }
    }

    /// The number of decoded octets; a Huffman string is checked on the way (RFC 7541 §5.2) but not kept.
    public func decodedLength() throws(HPACKError) -> Int {
        guard case .encoded(let buffer, huffman: true) = storage else { return storedLength }
        return try HPACKHuffman.decodedLength(buffer.readableBytesView)
    }

    /// The decoded octets as text (invalid UTF-8 is repaired, as for any header value).
    public func text() throws(HPACKError) -> String {
        switch storage {
        case .text(let text): return text
        case .encoded(let buffer, huffman: false): return String(buffer: buffer)
        default: return String(decoding: try decodedBytes(), as: UTF8.self)
        }
    }

    /// The decoded length, for the forms the dynamic table holds.
    fileprivate var storedLength: Int {
        switch storage {
        case .text(let text): text.utf8.count
        case .bytes(let bytes): bytes.count
        case .encoded(let buffer, _): buffer.readableBytes
        }
    }
}

/// One decoded header field.
public struct HPACKField: Sendable {
    /// Which of the provider API's headers this is; when set, `value` is `.text`.
    public var known: ProviderRequestHead.Field?
    /// The field's name.
    public var name: HPACKString
    /// The field's value.
    public var value: HPACKString
    /// What the name is to HTTP/2's message rules.
    public var nameKind: HPACKNameKind
    /// Decoded name and value octets plus 32: what the field counts towards SETTINGS_MAX_HEADER_LIST_SIZE (RFC 9113
    /// §6.5.2, RFC 7541 §4.1).
    public var size: Int

    /// A field as the decoder hands it out.
    public init(known: ProviderRequestHead.Field?, name: HPACKString, value: HPACKString, nameKind: HPACKNameKind, size: Int) {
        self.known = known
        self.name = name
        self.value = value
        self.nameKind = nameKind
        self.size = size
    }
}

/// Decodes the header blocks of one connection's requests (RFC 7541), keeping the dynamic table.
///
/// Table entries keep their decoded form: an indexed field, the usual case once a client has sent a header (h2load,
/// nghttp2, curl and python-h2 index `authorization`, `apns-topic`, `:path`), costs a table lookup and no allocation.
public struct HPACKFieldDecoder: Sendable {
    private struct Entry: Sendable {
        var known: ProviderRequestHead.Field?
        var name: HPACKString
        var value: HPACKString
        var kind: HPACKNameKind
        /// RFC 7541 §4.1: name and value octets plus 32.
        var size: Int
    }

    /// The table size limit we advertised (SETTINGS_HEADER_TABLE_SIZE); size updates may not exceed it.
    public let maximumTableSizeLimit: Int
    /// The table size in force: the limit, or less after a size update (§6.3).
    public private(set) var maximumTableSize: Int
    /// The dynamic table's size: its entries' octets plus 32 each (§4.1).
    public private(set) var tableSize = 0
    /// The last `authorization` sent as a literal: its encoded octets and its text (see `authorizationText`).
    private var lastAuthorization: (encoded: [UInt8], huffman: Bool, text: String)?
    /// Newest first, so that dynamic index 62 is `dynamicTable[0]`.
    private var dynamicTable: [Entry] = []

    private static let staticEntries: [Entry] = HPACKStaticTable.entries.map { name, value in
        Entry(
            known: ProviderRequestHead.field(named: name.utf8),
            name: HPACKString(storage: .text(name)),
            value: HPACKString(storage: .text(value)),
            kind: HPACKNameKind(name: name.utf8),
            size: name.utf8.count + value.utf8.count + 32
        )
    }

    /// A decoder with an empty dynamic table; `maximumTableSize` is the SETTINGS_HEADER_TABLE_SIZE advertised.
    public init(maximumTableSize: Int = 4096) {
        self.maximumTableSizeLimit = maximumTableSize
        self.maximumTableSize = maximumTableSize
    }

    /// The number of entries in the dynamic table.
    public var dynamicEntryCount: Int { dynamicTable.count }

    /// Decodes a whole header block, calling `field` for each field in order.
    ///
    /// - Throws: ``HPACKError`` for a block that cannot be decoded: a connection error COMPRESSION_ERROR.
    public mutating func decode(_ block: ByteBuffer, field: (HPACKField) -> Void) throws(HPACKError) {
        var block = block
        var sawField = false
        while let first = block.readInteger(as: UInt8.self) {
            if first & 0x80 != 0 {
                // §6.1 indexed field
                let entry = try entry(at: try Self.readInteger(first: first, prefix: 7, from: &block))
                field(HPACKField(known: entry.known, name: entry.name, value: entry.value, nameKind: entry.kind, size: entry.size))
            } else if first & 0x40 != 0 {
                // §6.2.1 literal with incremental indexing: the table keeps it decoded.
                let (known, name, kind) = try readName(first: first, prefix: 6, from: &block, owned: true)
                let value = try Self.readString(from: &block)
                let stored = known != nil ? HPACKString(storage: .text(try value.text())) : HPACKString(storage: .bytes(try value.decodedBytes()))
                let size = name.storedLength + stored.storedLength + 32
                insert(Entry(known: known, name: name, value: stored, kind: kind, size: size))
                field(HPACKField(known: known, name: name, value: stored, nameKind: kind, size: size))
            } else if first & 0x20 != 0 {
                // §6.3 dynamic table size update, allowed only before the block's first field (§4.2).
                guard !sawField else { throw HPACKError("table size update after a header field") }
                let size = try Self.readInteger(first: first, prefix: 5, from: &block)
                guard size <= maximumTableSizeLimit else { throw HPACKError("table size update above the advertised limit") }
                maximumTableSize = size
                evict(toFit: 0)
                continue
            } else {
                // §6.2.2 without indexing, §6.2.3 never indexed: nothing is stored, so ignored fields stay encoded.
                let (known, name, kind) = try readName(first: first, prefix: 4, from: &block, owned: false)
                let value = try Self.readString(from: &block)
                let text: String
                switch known {
                case .none:
                    // RFC 7541 §5.2: an invalid Huffman string is a decoding error even in a field Herald ignores, so
                    // the string is checked (and measured) without being kept.
                    let size = name.storedLength + (try value.decodedLength()) + 32
                    field(HPACKField(known: nil, name: name, value: value, nameKind: kind, size: size))
                    sawField = true
                    continue
                case .authorization?: text = try authorizationText(value)
                case .some: text = try value.text()
                }
                let size = name.storedLength + text.utf8.count + 32
                field(HPACKField(known: known, name: name, value: .init(storage: .text(text)), nameKind: kind, size: size))
            }
            sawField = true
        }
    }

    /// The text of an `authorization` literal, reusing the previous one when the encoded octets are the same.
    ///
    /// Why: clients send `authorization` never indexed (nghttp2 does, as RFC 7541 §7.1.3 suggests for credentials),
    /// so the same provider token arrives as a literal on every request for up to an hour; comparing octets is far
    /// cheaper than Huffman-decoding a JWT each time.
    private mutating func authorizationText(_ value: HPACKString) throws(HPACKError) -> String {
        guard case .encoded(let buffer, let huffman) = value.storage else { return try value.text() }
        if let last = lastAuthorization, last.huffman == huffman,
            buffer.withUnsafeReadableBytes({ bytes in last.encoded.withUnsafeBytes { bytes.elementsEqual($0) } })
        {
            return last.text
        }
        let text = try value.text()
        lastAuthorization = (Array(buffer.readableBytesView), huffman, text)
        return text
    }

    private func entry(at index: Int) throws(HPACKError) -> Entry {
        if index >= 1, index <= Self.staticEntries.count { return Self.staticEntries[index - 1] }
        let dynamicIndex = index - Self.staticEntries.count - 1
        guard dynamicIndex >= 0, dynamicIndex < dynamicTable.count else { throw HPACKError("index \(index) outside the tables") }
        return dynamicTable[dynamicIndex]
    }

    /// Reads a field name, indexed or literal; `owned` copies a literal out of the block (for the table).
    private func readName(
        first: UInt8,
        prefix: Int,
        from block: inout ByteBuffer,
        owned: Bool
    ) throws(HPACKError) -> (ProviderRequestHead.Field?, HPACKString, HPACKNameKind) {
        let index = try Self.readInteger(first: first, prefix: prefix, from: &block)
        if index != 0 {
            let entry = try entry(at: index)
            return (entry.known, entry.name, entry.kind)
        }
        let literal = try Self.readString(from: &block)
        if case .encoded(let buffer, false) = literal.storage {
            let known = ProviderRequestHead.field(named: buffer.readableBytesView)
            let kind = HPACKNameKind(name: buffer.readableBytesView)
            return (known, owned ? HPACKString(storage: .bytes(Array(buffer.readableBytesView))) : literal, kind)
        }
        let bytes = try literal.decodedBytes()
        return (ProviderRequestHead.field(named: bytes), HPACKString(storage: .bytes(bytes)), HPACKNameKind(name: bytes))
    }

    private mutating func insert(_ entry: Entry) {
        evict(toFit: entry.size)
        // §4.4: an entry larger than the table empties it and is not added.
        guard entry.size <= maximumTableSize else { return }
        dynamicTable.insert(entry, at: 0)
        tableSize += entry.size
    }

    private mutating func evict(toFit size: Int) {
        while tableSize + size > maximumTableSize, let oldest = dynamicTable.popLast() {
            tableSize -= oldest.size
        }
    }

    /// Reads an integer with an N-bit prefix (§5.1) whose first octet is `first`.
    public static func readInteger(first: UInt8, prefix: Int, from block: inout ByteBuffer) throws(HPACKError) -> Int {
        let mask = UInt8((1 << prefix) - 1)
        var value = Int(first & mask)
        guard value == Int(mask) else { return value }
        var shift = 0
        while true {
            guard let byte = block.readInteger(as: UInt8.self) else { throw HPACKError("truncated integer") }
            // Nothing legitimate needs more than 2^28: refuse before the arithmetic can overflow.
            guard shift <= 21 else { throw HPACKError("integer too large") }
            value += Int(byte & 0x7F) << shift
            shift += 7
            if byte & 0x80 == 0 { return value }
        }
    }

    /// Reads a string literal (§5.2) as a slice of the block, not yet decoded.
    public static func readString(from block: inout ByteBuffer) throws(HPACKError) -> HPACKString {
        guard let first = block.readInteger(as: UInt8.self) else { throw HPACKError("truncated string") }
        let length = try readInteger(first: first, prefix: 7, from: &block)
        guard let slice = block.readSlice(length: length) else { throw HPACKError("string longer than the block") }
        return HPACKString(storage: .encoded(slice, huffman: first & 0x80 != 0))
    }
}
