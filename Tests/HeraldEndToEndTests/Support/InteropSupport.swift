import Foundation
import HeraldTestSupport
import Synchronization
import Testing

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// A failure to set up or drive an external program.
struct InteropError: Error, CustomStringConvertible {
    var description: String
    init(_ description: String) { self.description = description }
}

/// Where the package is, and the external programs the interop tests drive.
enum Interop {
    /// The package root, found from this file's path (`<root>/Tests/HeraldEndToEndTests/Support/InteropSupport.swift`).
    static let packageRoot: URL = URL(fileURLWithPath: #filePath)
        .deletingLastPathComponent()
        .deletingLastPathComponent()
        .deletingLastPathComponent()
        .deletingLastPathComponent()

    /// The aioapns CLI (`Tests/Interop/aioapns_client.py`).
    static var aioapnsScript: String { packageRoot.appendingPathComponent("Tests/Interop/aioapns_client.py").path }

    /// The versions `.ci/run` installs; keep the two lists equal.
    static let aioapnsPins = ["aioapns==4.0", "h2==4.4.1", "PyJWT==2.15.1", "pyOpenSSL==26.4.0", "cryptography==50.0.2"]
    /// The selenium the console's browser test drives Chromium with (`.ci/run`'s `SELENIUM_PIN`; keep them equal).
    static let seleniumPin = "selenium==4.51.0"
    /// The pytest that runs `Examples/TestingFromAnyLanguage` (`.ci/run`'s `PYTEST_PIN`; keep them equal).
    static let pytestPin = "pytest==9.2.0"
    /// The web push library `Tests/Interop/pywebpush_client.py` drives, and the two it builds on (`.ci/run`'s
    /// `WEBPUSH_PIN`; keep them equal).
    static let pywebpushPins = ["pywebpush==2.5.0", "py-vapid==1.9.6", "http-ece==1.2.1"]

    /// The Python that has aioapns, selenium and pytest: `HERALD_INTEROP_PYTHON` (set by `.ci/run`), else the package's
    /// `.build/interop-venv`, created and filled on first use (under a lock, once per test process).
    static func python() async throws -> String {
        try await pythonTask.value
    }

    private static let pythonTask = Task<String, any Error> {
        if let configured = ProcessInfo.processInfo.environment["HERALD_INTEROP_PYTHON"], !configured.isEmpty {
            return configured
        }
        let venv = packageRoot.appendingPathComponent(".build/interop-venv")
        let python = venv.appendingPathComponent("bin/python").path
        // Two `swift test` runs of this package (say, with different scratch paths) may race to create it: flock serialises them.
        let script = """
            set -eu
            mkdir -p "$(dirname "$VENV")"
            exec 9>"$VENV.lock"
            flock 9
            if ! "$VENV/bin/python" -c "$CHECK" >/dev/null 2>&1; then
                rm -rf "$VENV"
                python3 -m venv "$VENV"
                "$VENV/bin/python" -m pip install --quiet --disable-pip-version-check "$@"
            fi
            """
        let result = try await ExternalProcess.run(
            "bash",
            ["-c", script, "make-venv"] + aioapnsPins + [seleniumPin, pytestPin],
            environment: [
                "VENV": venv.path,
                "CHECK": "import importlib.metadata as m, aioapns, selenium, pytest; assert m.version('aioapns') == '4.0'; "
                    + "assert m.version('selenium') == '\(seleniumPin.dropFirst("selenium==".count))'; "
                    + "assert m.version('pytest') == '\(pytestPin.dropFirst("pytest==".count))'",
            ],
            deadline: .seconds(600)
        )
        guard result.succeeded else { throw InteropError("could not create \(venv.path) with aioapns and selenium:\n\(result)") }
        return python
    }

    /// Runs `Tests/Interop/aioapns_client.py` and decodes its JSON lines.
    static func aioapns(_ arguments: [String]) async throws -> (result: ProcessResult, answers: [AioapnsAnswer]) {
        let python = try await python()
        let result = try await ExternalProcess.run(python, [aioapnsScript] + arguments, deadline: .seconds(60))
        let answers = try result.lines.map { line in
            do {
                return try JSONDecoder().decode(AioapnsAnswer.self, from: Data(line.utf8))
            } catch {
                throw InteropError("aioapns_client.py printed a line that is not an answer: \(line)\n\(result)")
            }
        }
        return (result, answers)
    }

    /// Runs `Tests/Interop/pywebpush_client.py` and decodes its one JSON line; the interop Python is given
    /// ``pywebpushPins`` first when it lacks them (under a lock, so that two test processes install once).
    static func pywebpush(_ arguments: [String]) async throws -> (result: ProcessResult, answer: PyWebPushAnswer) {
        let python = try await python()
        let versions = pywebpushPins.map { pin in
            let parts = pin.split(separator: "=", omittingEmptySubsequences: true)
            return "m.version('\(parts[0])') == '\(parts[1])'"
        }
        let install = try await ExternalProcess.run(
            "bash",
            [
                "-c",
                """
                set -eu
                exec 9>"${TMPDIR:-/tmp}/herald-pywebpush-install.lock"
                flock 9
                "$PYTHON" -c "$CHECK" >/dev/null 2>&1 || "$PYTHON" -m pip install --quiet --disable-pip-version-check "$@"
                """,
                "install-pywebpush",
            ] + pywebpushPins,
            environment: ["PYTHON": python, "CHECK": "import importlib.metadata as m, pywebpush; assert " + versions.joined(separator: " and ")],
            deadline: .seconds(600)
        )
        guard install.succeeded else { throw InteropError("could not install \(pywebpushPins) into \(python):\n\(install)") }
        let script = packageRoot.appendingPathComponent("Tests/Interop/pywebpush_client.py").path
        let result = try await ExternalProcess.run(python, [script] + arguments, deadline: .seconds(60))
        guard result.succeeded, result.lines.count == 1, let line = result.lines.first else {
            throw InteropError("pywebpush_client.py did not print one answer:\n\(result)")
        }
        do {
            return (result, try JSONDecoder().decode(PyWebPushAnswer.self, from: Data(line.utf8)))
        } catch {
            throw InteropError("pywebpush_client.py printed a line that is not an answer: \(line)\n\(result)")
        }
    }
}

/// One line of `aioapns_client.py`'s output.
struct AioapnsAnswer: Decodable, Sendable {
    var token: String
    var status: Int
    var reason: String?
    var apnsID: String?
    var timestamp: Int64?
    var connection: Int?

    enum CodingKeys: String, CodingKey {
        case token, status, reason, timestamp, connection
        case apnsID = "apns_id"
    }
}

/// One HTTP answer as curl printed it with `-i`.
struct CurlAnswer: Sendable, CustomStringConvertible {
    /// `HTTP/2` or `HTTP/1.1`.
    var version: String
    var status: Int
    /// Header names in lower case.
    var headers: [String: String]
    var body: String

    var description: String { "\(version) \(status) \(headers) \(body)" }

    /// The error body `{"reason":…,"timestamp":…}`; decoding fails on a `timestamp` that is not an integer.
    private struct ErrorBody: Decodable {
        var reason: String?
        var timestamp: Int64?
    }

    private var errorBody: ErrorBody? { try? JSONDecoder().decode(ErrorBody.self, from: Data(body.utf8)) }

    var reason: String? { errorBody?.reason }

    /// The 410 `timestamp`, only when it is a JSON integer (not a string).
    var timestamp: Int64? { errorBody?.timestamp }

    /// Parses `curl -i` output: status line, headers, blank line, body.
    init(parsing output: String) throws {
        let normalized = output.replacingOccurrences(of: "\r\n", with: "\n")
        guard let split = normalized.range(of: "\n\n") else { throw InteropError("no header block in curl output:\n\(output)") }
        let head = normalized[..<split.lowerBound].split(separator: "\n").map(String.init)
        body = String(normalized[split.upperBound...])
        guard let statusLine = head.first else { throw InteropError("no status line in curl output:\n\(output)") }
        let parts = statusLine.split(separator: " ")
        guard parts.count >= 2, let status = Int(parts[1]) else { throw InteropError("bad status line '\(statusLine)'") }
        version = String(parts[0])
        self.status = status
        var headers: [String: String] = [:]
        for line in head.dropFirst() {
            guard let colon = line.firstIndex(of: ":") else { continue }
            let name = line[..<colon].lowercased()
            headers[name] = line[line.index(after: colon)...].trimmingCharacters(in: .whitespaces)
        }
        self.headers = headers
    }
}
