/// A Prometheus text exposition (format 0.0.4) read back for assertions: each sample by its series, e.g.
/// `herald_notifications_rejected_total{reason="BadDeviceToken",status="400"}`, and each family's `# TYPE`.
public struct PrometheusText {
    public private(set) var samples: [String: Double] = [:]
    public private(set) var types: [String: String] = [:]
    public private(set) var help: [String: String] = [:]

    public init(_ text: String) {
        for line in text.split(separator: "\n") {
            if line.hasPrefix("# TYPE ") {
                let parts = line.dropFirst("# TYPE ".count).split(separator: " ", maxSplits: 1)
                if parts.count == 2 { types[String(parts[0])] = String(parts[1]) }
            } else if line.hasPrefix("# HELP ") {
                let parts = line.dropFirst("# HELP ".count).split(separator: " ", maxSplits: 1)
                if parts.count == 2 { help[String(parts[0])] = String(parts[1]) }
            } else if !line.hasPrefix("#"), let space = line.lastIndex(of: " ") {
                samples[String(line[..<space])] = Double(line[line.index(after: space)...])
            }
        }
    }

    public subscript(_ series: String) -> Double? { samples[series] }
}
