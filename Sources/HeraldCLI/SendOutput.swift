import Foundation
import HeraldCore
import HeraldProviderClient

/// How `herald send` writes an answer: one line for people, or one JSON object.
enum SendOutput {
    /// `200  apns-id <id>  apns-unique-id <id>  1.2 ms`, `400 BadDeviceToken  apns-id <id>  0.9 ms`,
    /// `410 Unregistered  timestamp <ms>  apns-id <id>  1.0 ms`; an answer a Herald fault rule made ends with
    /// `answered by fault rule f1 (herald faults clear --id f1 removes it)`.
    static func line(_ response: APNSResponse) -> String {
        var parts = [response.reason.map { "\(response.status) \($0.rawValue)" } ?? "\(response.status)"]
        if let timestamp = response.timestamp { parts.append("timestamp \(timestamp)") }
        parts.append("apns-id \(response.apnsID ?? "-")")
        if let uniqueID = response.apnsUniqueID { parts.append("apns-unique-id \(uniqueID)") }
        parts.append(milliseconds(response.latency) + " ms")
        if let rule = response.faultRule {
            parts.append("answered by fault rule \(rule) (herald faults clear --id \(rule) removes it)")
        }
        return parts.joined(separator: "  ")
    }

    /// `{"apnsID":…,"apnsUniqueID":…,"faultRule":…,"latencyMs":…,"reason":…,"status":…,"timestamp":…}` (absent keys
    /// omitted).
    static func jsonLine(_ response: APNSResponse) -> String {
        var object: [String: JSONValue] = ["status": .int(response.status), "latencyMs": .double(roundedMilliseconds(response.latency))]
        if let reason = response.reason { object["reason"] = .string(reason.rawValue) }
        if let apnsID = response.apnsID { object["apnsID"] = .string(apnsID) }
        if let uniqueID = response.apnsUniqueID { object["apnsUniqueID"] = .string(uniqueID) }
        if let timestamp = response.timestamp { object["timestamp"] = .integer(timestamp) }
        if let rule = response.faultRule { object["faultRule"] = .string(rule) }
        return OutputFormat.jsonLine(object)
    }

    /// A broadcast's answer: `200  apns-request-id <id>  apns-unique-id <id>  1.2 ms`,
    /// `400 ChannelNotRegistered  apns-request-id <id>  0.9 ms`.
    static func line(_ response: APNSChannelResponse) -> String {
        var parts = [response.reason.map { "\(response.status) \($0.rawValue)" } ?? "\(response.status)"]
        parts.append("apns-request-id \(response.requestID ?? "-")")
        if let uniqueID = response.uniqueID { parts.append("apns-unique-id \(uniqueID)") }
        parts.append(milliseconds(response.latency) + " ms")
        return parts.joined(separator: "  ")
    }

    /// A broadcast's answer: `{"apnsRequestID":…,"apnsUniqueID":…,"latencyMs":…,"reason":…,"status":…}` (absent keys
    /// omitted).
    static func jsonLine(_ response: APNSChannelResponse) -> String {
        var object: [String: JSONValue] = ["status": .int(response.status), "latencyMs": .double(roundedMilliseconds(response.latency))]
        if let reason = response.reason { object["reason"] = .string(reason.rawValue) }
        if let requestID = response.requestID { object["apnsRequestID"] = .string(requestID) }
        if let uniqueID = response.uniqueID { object["apnsUniqueID"] = .string(uniqueID) }
        return OutputFormat.jsonLine(object)
    }

    /// A duration in milliseconds with one decimal, `12.3`.
    static func milliseconds(_ duration: Duration) -> String {
        String(format: "%.1f", roundedMilliseconds(duration))
    }

    /// A duration in milliseconds, rounded to microseconds.
    static func roundedMilliseconds(_ duration: Duration) -> Double {
        let nanoseconds = Double(duration.components.seconds) * 1e9 + Double(duration.components.attoseconds) / 1e9
        return (nanoseconds / 1000).rounded() / 1000
    }
}
