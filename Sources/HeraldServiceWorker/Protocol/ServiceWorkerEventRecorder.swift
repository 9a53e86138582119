/// The host's side of one event: reads the scope's lines into a ``ServiceWorkerOutcome``, with a limit on the actions
/// one event may take, until the event's `done`.
///
/// Pure: no process, no clock. Lines of other events (a timed-out event's late actions) are skipped.
struct ServiceWorkerEventRecorder: Sendable {
    /// The event's number.
    let event: Int64
    /// The most actions (lines other than `done`) kept for the event.
    let maximumActions: Int
    /// What the worker did so far.
    private(set) var outcome: ServiceWorkerOutcome
    /// Whether the event's `done` came.
    private(set) var isDone = false
    private var actions = 0

    init(event: Int64, name: String, maximumActions: Int) {
        self.event = event
        self.maximumActions = maximumActions
        outcome = ServiceWorkerOutcome(event: name)
    }

    /// Takes one output of the line reader.
    mutating func record(_ output: ServiceWorkerLineReader.Output, maximumLineLength: Int) {
        guard !isDone else { return }
        switch output {
        case .overlong(let length):
            outcome.errors.append(ServiceWorkerError(.protocol, "a line of \(length) bytes is over the limit of \(maximumLineLength)"))
        case .line(let line):
            record(line)
        }
    }

    private mutating func record(_ line: [UInt8]) {
        let message: ServiceWorkerMessage
        do {
            message = try ServiceWorkerMessage.read(line)
        } catch {
            outcome.unreadableLines.append("\(error.message): \(String(decoding: line.prefix(200), as: UTF8.self))")
            return
        }
        if let other = message.event, other != event { return }
        if case .done(let listeners, let milliseconds) = message.content {
            outcome.listeners = listeners
            outcome.workerDuration = .milliseconds(milliseconds)
            isDone = true
            return
        }
        actions += 1
        guard actions <= maximumActions else {
            if actions == maximumActions + 1 {
                outcome.errors.append(ServiceWorkerError(.protocol, "more than \(maximumActions) actions in one event; the rest are ignored"))
            }
            return
        }
        switch message.content {
        case .show(let notification): outcome.shown.append(notification)
        case .close(let id): outcome.closed.append(id)
        case .openWindow(let url): outcome.openedWindows.append(url)
        case .badge(let change): outcome.badgeChanges.append(change)
        case .console(let line): outcome.console.append(line)
        case .error(let error): outcome.errors.append(error)
        case .done: break
        }
    }

    /// Ends the event without its `done`: the process ended, or the host's deadline passed.
    mutating func end(with error: ServiceWorkerError) {
        guard !isDone else { return }
        outcome.errors.append(error)
        isDone = true
    }
}
