import HeraldUserNotifications
import Synchronization

/// The service extension a manifest's `steps` describe: the steps run in order on a copy of the
/// content, on the device's clock, and the result is handed over when they are done.
///
/// `didReceive` must return at once and answer later (Apple's API), so the steps run in a task
/// this instance owns: `serviceExtensionTimeWillExpire()` cancels it and hands over the best
/// attempt — the content after the last finished step — unless the manifest says otherwise.
final class BuiltInServiceExtension: UNNotificationServiceExtension {
    /// The content after the last finished step, and how many steps finished.
    private final class Progress: Sendable {
        struct State {
            var content: NotificationContentValue
            var completed = 0
            var finished = false
        }

        let state: Mutex<State>
        init(_ content: NotificationContentValue) { state = Mutex(State(content: content)) }
    }

    private struct Running: Sendable {
        let identifier: String
        let task: Task<Void, Never>
        let contentHandler: @Sendable (UNNotificationContent) -> Void
        let progress: Progress
    }

    private let steps: [ExtensionStep]
    private let bestAttemptOnExpiry: Bool
    private let clock: any NotificationClock
    private let log: ExtensionRunLog
    private let running = Mutex<Running?>(nil)

    init(steps: [ExtensionStep], bestAttemptOnExpiry: Bool, clock: any NotificationClock, log: ExtensionRunLog) {
        self.steps = steps
        self.bestAttemptOnExpiry = bestAttemptOnExpiry
        self.clock = clock
        self.log = log
        super.init()
    }

    deinit {
        running.withLock { $0?.task.cancel() }
    }

    override func didReceive(_ request: UNNotificationRequest, withContentHandler contentHandler: @escaping @Sendable (UNNotificationContent) -> Void)
    {
        let context = StepContext(
            identifier: request.identifier,
            center: UNUserNotificationCenter.current(),
            clock: clock,
            log: log
        )
        let steps = steps
        let original = request.content.value
        let progress = Progress(original)
        // A fault rule's `extensionTimeout`: the budget is spent before the first step finishes (and the outcome does
        // not depend on how far a task got before `serviceExtensionTimeWillExpire()`).
        let cutOff = timeBudgetIsSpent
        let task = Task {
            guard !cutOff else { return }
            var content = original
            for (index, step) in steps.enumerated() {
                guard !Task.isCancelled else { return }
                content = await context.apply(step, to: content)
                let done = content
                progress.state.withLock { state in
                    if !state.finished {
                        state.content = done
                        state.completed = index + 1
                    }
                }
            }
            guard !Task.isCancelled else { return }
            contentHandler(UNNotificationContent(value: content))
        }
        running.withLock { $0 = Running(identifier: request.identifier, task: task, contentHandler: contentHandler, progress: progress) }
    }

    override func serviceExtensionTimeWillExpire() {
        guard let running = running.withLock({ $0 }) else { return }
        running.task.cancel()
        let (content, completed) = running.progress.state.withLock { state in
            state.finished = true
            return (state.content, state.completed)
        }
        // Steps do not write notes once cancelled; the expiry says where they stopped.
        for index in completed..<steps.count {
            log.note(running.identifier, ["step": .string(steps[index].kind), "result": .string(index == completed ? "interrupted" : "notReached")])
        }
        if bestAttemptOnExpiry { running.contentHandler(UNNotificationContent(value: content)) }
    }
}
