import HeraldCore

extension SQLiteStore {
    /// The 16 bytes of an `apns-id`, as the `apns_id` column holds them (schema v10).
    package static func keyBytes(_ id: NotificationID) -> [UInt8] {
        var bytes: [UInt8] = []
        bytes.reserveCapacity(16)
        var high: UInt8?
        for byte in id.text.utf8 where byte != UInt8(ascii: "-") {
            let nibble: UInt8
            switch byte {
            case UInt8(ascii: "0")...UInt8(ascii: "9"): nibble = byte - UInt8(ascii: "0")
            case UInt8(ascii: "a")...UInt8(ascii: "f"): nibble = byte - UInt8(ascii: "a") + 10
            default: nibble = byte - UInt8(ascii: "A") + 10
            }
            if let first = high {
                bytes.append(first << 4 | nibble)
                high = nil
            } else {
                high = nibble
            }
        }
        return bytes
    }

    /// The key (lowercase canonical text) of an `apns_id` column's 16 bytes; `nil` when they are not 16.
    package static func key(fromBytes bytes: [UInt8]) -> String? {
        guard bytes.count == 16 else { return nil }
        let digits = Array("0123456789abcdef".utf8)
        var text: [UInt8] = []
        text.reserveCapacity(36)
        for (index, byte) in bytes.enumerated() {
            if index == 4 || index == 6 || index == 8 || index == 10 { text.append(UInt8(ascii: "-")) }
            text.append(digits[Int(byte >> 4)])
            text.append(digits[Int(byte & 0xF)])
        }
        return String(decoding: text, as: UTF8.self)
    }

    /// What the `apns_id_text` column holds for the provider's form `text` of `key`: `nil` when it is the key itself,
    /// `"U"` when it is the key in uppercase, else the text.
    static func storedIDText(_ text: String, key: String) -> String? {
        if text == key { return nil }
        if text == key.uppercased() { return "U" }
        return text
    }

    /// The provider's form of the `apns-id` from the `apns_id_text` column and the key.
    static func idText(stored: String?, key: String) -> String {
        switch stored {
        case nil: key
        case "U": key.uppercased()
        case let text?: text
        }
    }

    /// `value`, or `nil` when it is `same` (a column that is `NULL` when it repeats the token's value, schema v10).
    static func unlessSame(_ value: String, as same: String) -> String? {
        value == same ? nil : value
    }
}
