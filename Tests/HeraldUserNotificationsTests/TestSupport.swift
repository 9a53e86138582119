import Foundation
import HeraldUserNotifications
import Synchronization

/// Minimal but real media files, written at run time.
enum Fixture {
    static let png: [UInt8] =
        [0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A, 0x00, 0x00, 0x00, 0x0D] + Array("IHDR".utf8)
        + [0x00, 0x00, 0x00, 0x01, 0x00, 0x00, 0x00, 0x01, 0x08, 0x02, 0x00, 0x00, 0x00, 0x90, 0x77, 0x53, 0xDE]
        + [0x00, 0x00, 0x00, 0x00] + Array("IEND".utf8) + [0xAE, 0x42, 0x60, 0x82]
    static let jpeg: [UInt8] = [0xFF, 0xD8, 0xFF, 0xE0, 0x00, 0x10] + Array("JFIF".utf8) + [0x00, 0x01, 0x01, 0x00, 0xFF, 0xD9]
    static let gif: [UInt8] = Array("GIF89a".utf8) + [0x01, 0x00, 0x01, 0x00, 0x00, 0x00, 0x00, 0x3B]
    static let wav: [UInt8] = Array("RIFF".utf8) + [0x24, 0, 0, 0] + Array("WAVEfmt ".utf8) + [UInt8](repeating: 0, count: 24)
    static let mp3: [UInt8] = Array("ID3".utf8) + [0x03, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00] + [UInt8](repeating: 0, count: 16)
    static let mp4: [UInt8] = [0x00, 0x00, 0x00, 0x18] + Array("ftypisom".utf8) + [UInt8](repeating: 0, count: 12)

    static func directory() -> URL {
        let url = FileManager.default.temporaryDirectory.appendingPathComponent("herald-tests-\(UUID().uuidString)", isDirectory: true)
        try? FileManager.default.createDirectory(at: url, withIntermediateDirectories: true)
        return url
    }

    static func file(_ name: String, _ bytes: [UInt8], padTo size: Int? = nil, in directory: URL = directory()) -> URL {
        let url = directory.appendingPathComponent(name)
        _ = FileManager.default.createFile(atPath: url.path, contents: Data(bytes))
        if let size, size > bytes.count, let handle = try? FileHandle(forWritingTo: url) {
            try? handle.truncate(atOffset: UInt64(size))  // a sparse file: large, cheap to write
            try? handle.close()
        }
        return url
    }
}

/// Builds a runtime on a manual clock, with notifications authorized.
func makeRuntime(
    clock: ManualNotificationClock = ManualNotificationClock(),
    configure: (inout DeviceRuntime.Configuration) -> Void = { _ in },
    appDelegate: (@Sendable () -> any UIApplicationDelegate)? = nil,
    serviceExtension: (@Sendable () throws -> UNNotificationServiceExtension)? = nil,
    contentExtensions: [ContentExtensionRegistration] = [],
    authorize: UNAuthorizationOptions? = [.alert, .sound, .badge]
) async throws -> DeviceRuntime {
    var configuration = DeviceRuntime.Configuration()
    configure(&configuration)
    let runtime = DeviceRuntime(
        clock: clock,
        configuration: configuration,
        appDelegate: appDelegate,
        serviceExtension: serviceExtension,
        contentExtensions: contentExtensions
    )
    if let authorize {
        _ = try await runtime.center.requestAuthorization(options: authorize)
    }
    return runtime
}

/// An app delegate that records calls and answers fetches with a fixed result.
final class RecordingAppDelegate: UIApplicationDelegate, Sendable {
    let calls = Mutex<[String]>([])
    let launchOptions = Mutex<[String]>([])
    let fetchResult: UIBackgroundFetchResult?
    let notificationDelegate: (any UNUserNotificationCenterDelegate & Sendable)?

    init(fetchResult: UIBackgroundFetchResult? = .newData, notificationDelegate: (any UNUserNotificationCenterDelegate & Sendable)? = nil) {
        self.fetchResult = fetchResult
        self.notificationDelegate = notificationDelegate
    }

    func application(_ application: UIApplication, didFinishLaunchingWithOptions launchOptions: [UIApplication.LaunchOptionsKey: Any]?) -> Bool {
        calls.withLock { $0.append("didFinishLaunching") }
        self.launchOptions.withLock { $0 = (launchOptions ?? [:]).keys.map(\.rawValue) }
        UNUserNotificationCenter.current().delegate = notificationDelegate
        return true
    }

    func application(
        _ application: UIApplication,
        didReceiveRemoteNotification userInfo: [AnyHashable: Any],
        fetchCompletionHandler completionHandler: @escaping @Sendable (UIBackgroundFetchResult) -> Void
    ) {
        calls.withLock { $0.append("didReceiveRemoteNotification:\(application.lifecycleState.rawValue)") }
        if let fetchResult { completionHandler(fetchResult) }
    }
}

/// A notification delegate that records calls.
final class RecordingCenterDelegate: UNUserNotificationCenterDelegate, Sendable {
    let presentations = Mutex<[String]>([])
    let responses = Mutex<[(String, String, String?)]>([])
    let options: UNNotificationPresentationOptions?
    let implementsResponses: Bool

    init(options: UNNotificationPresentationOptions? = [.banner, .list, .sound, .badge], implementsResponses: Bool = true) {
        self.options = options
        self.implementsResponses = implementsResponses
    }

    func userNotificationCenter(
        _ center: UNUserNotificationCenter,
        willPresent notification: UNNotification,
        withCompletionHandler completionHandler: @escaping @Sendable (UNNotificationPresentationOptions) -> Void
    ) {
        presentations.withLock { $0.append(notification.request.identifier) }
        if let options { completionHandler(options) }
    }

    func userNotificationCenter(
        _ center: UNUserNotificationCenter,
        didReceive response: UNNotificationResponse,
        withCompletionHandler completionHandler: @escaping @Sendable () -> Void
    ) {
        let text = (response as? UNTextInputNotificationResponse)?.userText
        responses.withLock { $0.append((response.notification.request.identifier, response.actionIdentifier, text)) }
        completionHandler()
    }
}

/// A delegate that implements nothing (an app that sets a delegate for other reasons).
final class SilentCenterDelegate: UNUserNotificationCenterDelegate, Sendable {}

/// Keeps a delegate alive (the center holds it weakly, as on Apple platforms).
final class DelegateHolder: Sendable {
    let delegate: any UNUserNotificationCenterDelegate & Sendable
    init(_ delegate: any UNUserNotificationCenterDelegate & Sendable) { self.delegate = delegate }
}

func alertPayload(title: String = "Hello", body: String = "World", extra: [String: Any] = [:], aps apsExtra: [String: Any] = [:]) -> [String: Any] {
    var aps: [String: Any] = ["alert": ["title": title, "body": body]]
    aps.merge(apsExtra) { $1 }
    var payload: [String: Any] = ["aps": aps]
    payload.merge(extra) { $1 }
    return payload
}
