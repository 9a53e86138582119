import ArgumentParser
import AsyncHTTPClient
import Foundation
import HeraldCore
import NIOCore

/// `herald faults`: the fault rules of a running server, through its web port (docs/faults.md).
struct FaultsCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "faults",
        abstract: "Make a running server fail on purpose: add, list and clear fault rules (docs/faults.md).",
        subcommands: [Add.self, List.self, Clear.self]
    )

    /// Where the server's web port is, and its API token.
    struct WebPortOptions: ParsableArguments {
        @Option(name: .customLong("server"), help: "The server's web port.")
        var server = "http://127.0.0.1:2196"

        @Option(name: .customLong("api-token"), help: "The web port's API token, when it has one (also HERALD_API_TOKEN).")
        var apiToken: String?

        /// The token from the option or `HERALD_API_TOKEN`.
        var token: String? {
            apiToken ?? ProcessInfo.processInfo.environment["HERALD_API_TOKEN"].flatMap { $0.isEmpty ? nil : $0 }
        }
    }

    struct Add: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Add a rule or a scenario: JSON text, @FILE, or - for standard input.",
            discussion: #"e.g. herald faults add '{"match": {"topic": "com.example.app"}, "status": 503, "count": 1}'"#
        )
        @OptionGroup var web: WebPortOptions
        @Argument(help: "The rule as JSON, @FILE, or -.") var rule: String
        @Flag(help: "Print the rule as JSON.") var json = false

        func run() async throws {
            try await reportingErrors {
                let body = try FaultsCommand.ruleText(rule)
                let object = try await FaultsAPIClient(options: web).send("POST", "/api/v1/faults", body: body, expecting: 201)
                if json {
                    print(OutputFormat.jsonLine(object))
                } else {
                    print("added \(FaultsCommand.summary(of: object))")
                }
            }
        }
    }

    struct List: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "List the rules, with what each has done and its window (spent and expired rules too, until cleared)."
        )
        @OptionGroup var web: WebPortOptions
        @Flag(help: "One JSON object per line.") var json = false

        func run() async throws {
            try await reportingErrors {
                let object = try await FaultsAPIClient(options: web).send("GET", "/api/v1/faults", expecting: 200)
                let rules = (object["faults"]?.arrayValue ?? []).compactMap(\.dictionaryValue)
                for rule in rules {
                    print(json ? OutputFormat.jsonLine(rule) : FaultsCommand.summary(of: rule))
                }
                if !json && rules.isEmpty { print("no fault rule in force") }
            }
        }
    }

    struct Clear: AsyncParsableCommand {
        static let configuration = CommandConfiguration(abstract: "Remove one rule (--id) or every rule.")
        @OptionGroup var web: WebPortOptions
        @Option(help: "The rule to remove; every rule without it.") var id: String?

        func run() async throws {
            try await reportingErrors {
                let client = FaultsAPIClient(options: web)
                if let id {
                    guard let escaped = id.addingPercentEncoding(withAllowedCharacters: .urlPathAllowed) else {
                        throw CLIFailure("--id \(id) is not a rule id")
                    }
                    _ = try await client.send("DELETE", "/api/v1/faults/\(escaped)", expecting: 204)
                    print("removed \(id)")
                } else {
                    let object = try await client.send("DELETE", "/api/v1/faults", expecting: 200)
                    let removed = object["removed"]?.integerValue ?? 0
                    print("removed \(removed) rule\(removed == 1 ? "" : "s")")
                }
            }
        }
    }

    /// The rule's text from the argument: JSON as given, `@FILE`, or `-` for standard input.
    static func ruleText(_ argument: String) throws -> Data {
        if argument == "-" { return FileHandle.standardInput.readDataToEndOfFile() }
        if argument.hasPrefix("@") {
            let path = String(argument.dropFirst())
            try SystemError.requireReadable(path)
            guard let data = FileManager.default.contents(atPath: path) else { throw CLIFailure("cannot read \(path)") }
            return data
        }
        return Data(argument.utf8)
    }

    /// One line for a rule: `f1  503 ServiceUnavailable  topic com.example.app  applied 1, 0 left`.
    static func summary(of rule: [String: JSONValue]) -> String {
        var parts: [String] = [rule["id"]?.stringValue ?? "?"]
        var effects: [String] = []
        if let status = rule["status"]?.integerValue, let reason = rule["reason"]?.stringValue { effects.append("\(status) \(reason)") }
        if let delay = rule["delayMs"]?.integerValue { effects.append("after \(delay) ms") }
        if let delay = rule["delay"]?.objectValue, let low = delay["minMs"]?.integerValue, let high = delay["maxMs"]?.integerValue {
            effects.append("after \(low)–\(high) ms")
        }
        if let reason = rule["goaway"]?.stringValue { effects.append("GOAWAY \(reason)") }
        if rule["reset"] == .bool(true) { effects.append("RST_STREAM") }
        if rule["close"] == .bool(true) { effects.append("connection closed") }
        if let stall = rule["stallMs"]?.integerValue { effects.append("reads stalled \(stall) ms") }
        parts.append(effects.joined(separator: ", "))
        let match = (rule["match"]?.dictionaryValue ?? [:]).sorted { $0.key < $1.key }
        let conditions = match.map { "\($0.key) \($0.value.stringValue ?? $0.value.jsonText())" }
        parts.append(match.isEmpty ? "every request" : conditions.joined(separator: ", "))
        if let probability = rule["probability"]?.doubleValue, probability < 1 { parts.append("probability \(probability)") }
        var tally = "applied \(rule["applied"]?.integerValue ?? 0)"
        if let remaining = rule["remaining"]?.integerValue { tally += ", \(remaining) left" }
        parts.append(tally)
        if let window = window(of: rule) { parts.append(window) }
        return parts.joined(separator: "  ")
    }

    /// The rule's window and state: `until 2026-…Z`, `expired 2026-…Z` (an `apns-outage` that is over),
    /// `from 2026-…Z (pending)`, `spent`; `nil` for a rule in force without a window.
    static func window(of rule: [String: JSONValue]) -> String? {
        let from = rule["from"]?.integerValue.map { OutputFormat.iso8601(milliseconds: Int64($0)) }
        let until = rule["until"]?.integerValue.map { OutputFormat.iso8601(milliseconds: Int64($0)) }
        switch rule["state"]?.stringValue {
        case "expired": return "expired " + (until ?? "")
        case "spent": return "spent"
        case "pending": return ["from \(from ?? "")", until.map { "until \($0)" }].compactMap { $0 }.joined(separator: " ") + " (pending)"
        default: return until.map { "until \($0)" }
        }
    }
}

/// The web port's `/api/v1/faults` (and the inspection API's traces, for `herald trace`), over HTTP/1.1.
struct FaultsAPIClient {
    let options: FaultsCommand.WebPortOptions

    /// Sends a request; returns the JSON object of the answer (empty for `204`), or throws a one-line failure with
    /// the server's `error`.
    func send(_ method: String, _ path: String, body: Data? = nil, expecting status: Int) async throws -> [String: JSONValue] {
        let (code, data) = try await exchange(method, path, body: body)
        let object = (try? JSONParser.parse(data))?.dictionaryValue
        guard code == status else {
            let message = object?["error"]?.stringValue ?? String(decoding: data.prefix(200), as: UTF8.self)
            throw CLIFailure("\(method) \(path): \(code) \(message)")
        }
        return object ?? [:]
    }

    /// Sends a request; returns the status and the body as received, or throws a one-line failure when no server
    /// answers.
    ///
    /// Why a client of its own: the shared one retries a refused connection until the request's deadline, so that
    /// "no server there" took 30 s to say.
    func exchange(_ method: String, _ path: String, body: Data? = nil) async throws -> (status: Int, body: Data) {
        let base = options.server.hasSuffix("/") ? String(options.server.dropLast()) : options.server
        guard let url = URL(string: base + path), let scheme = url.scheme, ["http", "https"].contains(scheme) else {
            throw CLIFailure("--server \(options.server) is not an http:// or https:// URL")
        }
        var request = HTTPClientRequest(url: url.absoluteString)
        request.method = .RAW(value: method)
        if let token = options.token { request.headers.add(name: "authorization", value: "Bearer \(token)") }
        if let body {
            request.body = .bytes(ByteBuffer(bytes: body))
            request.headers.add(name: "content-type", value: "application/json")
        }
        var configuration = HTTPClient.Configuration()
        configuration.connectionPool.retryConnectionEstablishment = false
        configuration.timeout.connect = .seconds(10)
        let client = HTTPClient(eventLoopGroupProvider: .singleton, configuration: configuration)
        do {
            let response = try await client.execute(request, timeout: .seconds(30))
            let data = Data(try await response.body.collect(upTo: 4 << 20).readableBytesView)
            try? await client.shutdown()
            return (Int(response.status.code), data)
        } catch {
            try? await client.shutdown()
            throw CLIFailure("no Herald web port at \(base) (\(ConnectionFailure.text(error))); is `herald serve` running? (--server)")
        }
    }
}
