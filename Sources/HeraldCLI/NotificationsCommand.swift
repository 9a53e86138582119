import ArgumentParser
import Foundation
import HeraldCore
import HeraldStore

/// `herald notifications`: what the gateway accepted.
struct NotificationsCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "notifications",
        abstract: "Inspect accepted notifications.",
        subcommands: [List.self, Prune.self]
    )

    struct List: AsyncParsableCommand {
        static let configuration = CommandConfiguration(abstract: "List accepted notifications, newest first.")
        @OptionGroup var data: DataDirectoryOptions
        @Option(help: "Only this device token.") var token: String?
        @Option(help: "At most this many.") var limit = 50
        @Flag(help: "One JSON object per line.") var json = false

        func run() async throws {
            try await reportingErrors {
                var deviceToken: DeviceToken?
                if let token {
                    guard let parsed = DeviceToken(hex: token) else { throw CLIFailure("'\(token)' is not a device token") }
                    deviceToken = parsed
                }
                let store = try await openStore(data)
                let stored = try await store.listNotifications(token: deviceToken, limit: limit)
                await store.shutdown()
                for item in stored {
                    let n = item.notification
                    let payload = String(decoding: n.payload, as: UTF8.self)
                    if json {
                        let object: [String: Any] = [
                            "apnsID": n.id.text, "token": n.token.hex, "topic": n.topic, "pushType": n.pushType.rawValue,
                            "priority": n.priority.rawValue, "expiration": n.expiration as Any, "collapseID": n.collapseID as Any,
                            "acceptedAt": n.acceptedAtMilliseconds, "state": item.state.rawValue, "payload": payload,
                        ]
                        let data = try JSONSerialization.data(withJSONObject: object, options: [.sortedKeys])
                        print(String(decoding: data, as: UTF8.self))
                    } else {
                        print(
                            "\(n.id.text)  \(n.token.hex.prefix(12))…  \(n.topic)  \(n.pushType)  p\(n.priority)  \(item.state.rawValue)  \(payload)"
                        )
                    }
                }
            }
        }
    }
}
