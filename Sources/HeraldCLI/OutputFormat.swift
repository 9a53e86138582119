import HeraldCore

/// How the commands write times and JSON, so that every command prints them the same way.
enum OutputFormat {
    /// A time in milliseconds since the epoch as ISO 8601 in UTC with milliseconds: `2026-01-02T03:04:05.678Z`.
    ///
    /// Computed with integers (days to a civil date), so a millisecond is never rounded away as a
    /// `Double` of seconds may be.
    static func iso8601(milliseconds: Int64) -> String {
        let millisecondsPerDay: Int64 = 86_400_000
        let days = milliseconds.floorDivided(by: millisecondsPerDay)
        let ofDay = milliseconds - days * millisecondsPerDay
        // Howard Hinnant's `civil_from_days`: the proleptic Gregorian date of a day count from 1970-01-01.
        let shifted = days + 719_468
        let era = shifted.floorDivided(by: 146_097)
        let dayOfEra = shifted - era * 146_097
        let yearOfEra = (dayOfEra - dayOfEra / 1460 + dayOfEra / 36_524 - dayOfEra / 146_096) / 365
        let dayOfYear = dayOfEra - (365 * yearOfEra + yearOfEra / 4 - yearOfEra / 100)
        let monthIndex = (5 * dayOfYear + 2) / 153
        let day = dayOfYear - (153 * monthIndex + 2) / 5 + 1
        let month = monthIndex < 10 ? monthIndex + 3 : monthIndex - 9
        let year = yearOfEra + era * 400 + (month <= 2 ? 1 : 0)
        let date = "\(pad(year, 4))-\(pad(month, 2))-\(pad(day, 2))"
        let time = "\(pad(ofDay / 3_600_000, 2)):\(pad(ofDay / 60_000 % 60, 2)):\(pad(ofDay / 1000 % 60, 2)).\(pad(ofDay % 1000, 3))"
        return "\(date)T\(time)Z"
    }

    /// One JSON object as one line, keys sorted at every depth, `/` as itself (base64 channel ids, paths, URLs).
    static func jsonLine(_ members: [String: JSONValue]) -> String {
        JSONValue.object(members).jsonText(sortingKeys: true)
    }

    /// The value of a JSON text (a notification payload, a trace detail) for embedding in output; text that is not
    /// JSON stays a string, and `nil` becomes JSON `null`.
    static func embeddedJSON(_ text: String?) -> JSONValue {
        guard let text else { return .null }
        return (try? JSONParser.parse(text.utf8)) ?? .string(text)
    }

    private static func pad(_ value: Int64, _ width: Int) -> String {
        let digits = String(value)
        return digits.count >= width ? digits : String(repeating: "0", count: width - digits.count) + digits
    }
}

extension Int64 {
    /// Division rounding toward negative infinity, so times before 1970 format correctly too.
    fileprivate func floorDivided(by divisor: Int64) -> Int64 {
        let quotient = self / divisor
        return (self % divisor != 0 && (self < 0) != (divisor < 0)) ? quotient - 1 : quotient
    }
}
