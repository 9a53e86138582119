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
                        let object: [String: JSONValue] = [
                            "apnsID": .string(n.id.text), "token": .string(n.token.hex), "topic": .string(n.topic),
                            "pushType": .string(n.pushType.rawValue), "priority": .int(n.priority.rawValue),
                            "expiration": .nullable(n.expiration), "collapseID": .nullable(n.collapseID),
                            "acceptedAt": .integer(n.acceptedAtMilliseconds), "state": .string(item.state.rawValue), "payload": .string(payload),
                        ]
                        print(OutputFormat.jsonLine(object))
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
