import HeraldUserNotifications
import Synchronization

/// What one service extension run did, seen from outside the extension: the content it handed
/// over first, whether its time expired, and the built-in steps' notes.
struct ExtensionRun: Sendable {
    var handedOver: NotificationContentValue?
    var timeWillExpireCalled = false
    var notes: [JSONValue] = []
}

/// The runs of one app's service extension, by request identifier, until the device reports them.
final class ExtensionRunLog: Sendable {
    private let runs = Mutex<[String: ExtensionRun]>([:])

    func begin(_ identifier: String) {
        runs.withLock { $0[identifier] = ExtensionRun() }
    }

    /// Updates a run that has begun and not yet been taken (late writers are ignored).
    func update(_ identifier: String, _ body: (inout ExtensionRun) -> Void) {
        runs.withLock { runs in
            guard var run = runs[identifier] else { return }
            body(&run)
            runs[identifier] = run
        }
    }

    func note(_ identifier: String, _ note: [String: JSONValue]) {
        update(identifier) { $0.notes.append(.object(note)) }
    }

    /// Removes and returns the run of a request.
    func take(_ identifier: String) -> ExtensionRun? {
        runs.withLock { $0.removeValue(forKey: identifier) }
    }
}

/// Wraps every service extension the device runs — Swift code or built-in — to see what it hands
/// over and whether its time expired, without changing what the runtime sees.
final class RecordingServiceExtension: UNNotificationServiceExtension {
    private let inner: UNNotificationServiceExtension
    private let log: ExtensionRunLog
    private var identifier = ""

    init(_ inner: UNNotificationServiceExtension, log: ExtensionRunLog) {
        self.inner = inner
        self.log = log
        super.init()
    }

    override func didReceive(_ request: UNNotificationRequest, withContentHandler contentHandler: @escaping @Sendable (UNNotificationContent) -> Void)
    {
        identifier = request.identifier
        log.begin(request.identifier)
        let log = log
        let identifier = request.identifier
        // With a fault rule's `extensionTimeout`, what is handed over before the expiry comes too late to count.
        inner.timeBudgetIsSpent = timeBudgetIsSpent
        let cutOff = timeBudgetIsSpent
        inner.didReceive(request) { content in
            let value = content.value
            log.update(identifier) { run in
                if run.handedOver == nil, !cutOff || run.timeWillExpireCalled { run.handedOver = value }
            }
            contentHandler(content)
        }
    }

    override func serviceExtensionTimeWillExpire() {
        log.update(identifier) { $0.timeWillExpireCalled = true }
        inner.serviceExtensionTimeWillExpire()
    }
}
