import Foundation
import HeraldCore

extension ServiceWorkerHost {
    /// Starts `node` with the scope and reads the script's load (event 0).
    func launch() async -> ServiceWorkerOutcome {
        var outcome = ServiceWorkerOutcome(event: "load")
        guard let node = configuration.node ?? NodeExecutable.locate() else {
            outcome.errors.append(ServiceWorkerError(.nodeMissing, "no node to run the service worker (install nodejs, or set HERALD_NODE)"))
            return outcome
        }
        guard let origin = URL(string: configuration.origin), ["https", "http"].contains(origin.scheme ?? ""), origin.host != nil else {
            outcome.errors.append(ServiceWorkerError(.load, "the origin \"\(configuration.origin)\" is not an https: or http: origin"))
            return outcome
        }
        let script = URL(fileURLWithPath: configuration.scriptPath).standardizedFileURL
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("herald-service-worker-\(UUID().uuidString)")
        let scopeFile = folder.appendingPathComponent("scope.js")
        let errorFile = folder.appendingPathComponent("stderr")
        do {
            try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
            try Data(ServiceWorkerScope.source).write(to: scopeFile)
        } catch {
            outcome.errors.append(ServiceWorkerError(.exited, "cannot write the scope to \(folder.path): \(error)"))
            return outcome
        }
        if let directory { try? FileManager.default.removeItem(at: directory) }
        directory = folder
        var settings = JSONTextWriter()
        settings.beginObject()
        settings.member("budgetMilliseconds", Int64(configuration.timeBudget / .milliseconds(1)))
        settings.member("actionLimit", configuration.maximumActionsPerEvent)
        settings.member("maxActions", configuration.maximumNotificationActions)
        settings.endObject()
        let arguments =
            configuration.nodeOptions + [
                "--allow-fs-read=\(scopeFile.path)",
                "--allow-fs-read=\(script.deletingLastPathComponent().path)/*",
                scopeFile.path, script.path, configuration.origin, String(decoding: settings.bytes, as: UTF8.self),
            ]
        do throws(ServiceWorkerError) {
            process = try ServiceWorkerProcess(
                executable: node.path,
                arguments: arguments,
                standardErrorPath: errorFile.path,
                maximumLineLength: configuration.maximumLineLength
            )
        } catch {
            outcome.errors.append(error)
            return outcome
        }
        return await collect(event: 0, name: "load", deadline: ContinuousClock.now + configuration.timeBudget + Self.startGrace)
    }

    /// Sends one event (its `members` written after `id`, `type` and `displayed`) and reads what the worker did.
    func dispatch(_ type: String, members: (inout JSONTextWriter) -> Void) async -> ServiceWorkerOutcome {
        let began = ContinuousClock.now
        var restart: ServiceWorkerOutcome?
        if !isRunning {
            let load = await launch()
            guard isRunning else {
                var outcome = load
                outcome.event = type
                return outcome
            }
            restart = load
        }
        let event = nextEvent
        nextEvent += 1
        var writer = JSONTextWriter()
        writer.beginObject()
        writer.member("id", event)
        writer.member("type", type)
        writer.key("displayed")
        writer.beginArray()
        for notification in displayed { notification.write(to: &writer) }
        writer.endArray()
        members(&writer)
        writer.endObject()
        var outcome = ServiceWorkerOutcome(event: type)
        if let process, process.sendLine(writer.bytes) {
            outcome = await collect(event: event, name: type, deadline: began + configuration.timeBudget + Self.grace)
        } else {
            outcome.errors.append(ServiceWorkerError(.exited, "the worker does not read its events; its process was stopped"))
            process?.terminate()
            process = nil
        }
        if let restart {
            var joined = restart
            joined.append(outcome)
            joined.event = type
            outcome = joined
        }
        outcome.duration = ContinuousClock.now - began
        apply(outcome)
        return outcome
    }

    /// Reads the scope's lines for `event` until its `done`, the process's end, or `deadline` (the process is then
    /// killed).
    private func collect(event: Int64, name: String, deadline: ContinuousClock.Instant) async -> ServiceWorkerOutcome {
        let began = ContinuousClock.now
        var recorder = ServiceWorkerEventRecorder(event: event, name: name, maximumActions: configuration.maximumActionsPerEvent)
        guard let process else {
            recorder.end(with: ServiceWorkerError(.exited, "the worker is not running"))
            return recorder.outcome
        }
        while !recorder.isDone {
            switch await process.next(deadline: deadline) {
            case .line(let output)?:
                recorder.record(output, maximumLineLength: configuration.maximumLineLength)
            case .exited(let status, let signaled)?:
                guard self.process === process else {
                    recorder.end(with: ServiceWorkerError(.exited, "the worker was stopped during the \(name) event"))
                    break
                }
                let how = signaled ? "was killed by signal \(status)" : "exited with status \(status)"
                recorder.end(with: ServiceWorkerError(.exited, "node \(how) during the \(name) event\(standardErrorTail())"))
                self.process = nil
            case nil:
                let budget = configuration.timeBudget.formatted(.units(allowed: [.seconds, .milliseconds]))
                recorder.end(with: ServiceWorkerError(.timedOut, "the worker did not end the \(name) event within \(budget); its process was killed"))
                process.terminate()
                if self.process === process { self.process = nil }
            }
        }
        var outcome = recorder.outcome
        outcome.duration = ContinuousClock.now - began
        return outcome
    }

    /// What the event changed on screen: closed notifications leave, shown ones replace those with their tag.
    private func apply(_ outcome: ServiceWorkerOutcome) {
        displayed.removeAll { outcome.closed.contains($0.id) }
        for notification in outcome.shown {
            if !notification.options.tag.isEmpty { displayed.removeAll { $0.options.tag == notification.options.tag } }
            displayed.append(notification)
        }
    }

    /// The end of node's standard error, as `: …`, when it wrote something (its reason for ending).
    private func standardErrorTail() -> String {
        guard let directory, let data = FileManager.default.contents(atPath: directory.appendingPathComponent("stderr").path) else { return "" }
        let text = String(decoding: data.suffix(2_000), as: UTF8.self)
        let lines = text.split(whereSeparator: \.isNewline).map { $0.trimmingCharacters(in: .whitespaces) }.filter { !$0.isEmpty }
        // Node ends a crash with the stack and its version; the line that names the error says the most.
        if let named = lines.first(where: { $0.contains("Error") }) { return ": " + named }
        return lines.isEmpty ? "" : ": " + lines.suffix(3).joined(separator: " / ")
    }
}
