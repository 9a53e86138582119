import ArgumentParser
import Foundation
import HeraldCore
import HeraldStore

/// `herald devices`: the simulated devices that connect over the device link.
struct DevicesCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "devices",
        abstract: "Add and list devices (the identities device-link connections authenticate as).",
        subcommands: [Add.self, List.self]
    )

    struct Add: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Add a device and print its id and secret (the secret is shown only this once)."
        )
        @OptionGroup var data: DataDirectoryOptions
        @Argument(help: "A name for people (1 to 255 characters; need not be unique).") var name: String
        @Flag(help: "Print one JSON object: id, name, createdAt, secret.") var json = false

        func run() async throws {
            try await reportingErrors {
                let credentials = try await addDevice(named: name, data: data)
                let device = credentials.device
                if json {
                    print(
                        try OutputFormat.jsonLine([
                            "id": device.id, "name": device.name, "createdAt": device.createdAtMilliseconds, "secret": credentials.secret,
                        ])
                    )
                } else {
                    print("device \(device.id)")
                    print("secret \(credentials.secret)")
                    FileHandle.standardError.write(
                        Data("added device '\(device.name)'; the secret is shown only this once (only its hash is stored)\n".utf8)
                    )
                }
            }
        }
    }

    struct List: AsyncParsableCommand {
        static let configuration = CommandConfiguration(abstract: "List devices, oldest first, with their tokens per app.")
        @OptionGroup var data: DataDirectoryOptions
        @Flag(help: "One JSON object per device and line: id, name, createdAt, tokens.") var json = false

        func run() async throws {
            try await reportingErrors {
                let store = try await openStore(data)
                var listed: [(DeviceRecord, [TokenRecord])] = []
                do {
                    for device in try await store.devices() {
                        listed.append((device, try await store.tokens(deviceID: device.id)))
                    }
                } catch {
                    await store.shutdown()
                    throw error
                }
                await store.shutdown()
                for (device, tokens) in listed {
                    if json {
                        print(try OutputFormat.jsonLine(Self.jsonObject(device, tokens)))
                    } else {
                        print("\(device.id)  added \(OutputFormat.iso8601(milliseconds: device.createdAtMilliseconds))  \(device.name)")
                        for line in Self.appLines(tokens) { print("    \(line)") }
                    }
                }
            }
        }

        /// The device as the inspection API shows it (without `online`, which only the server knows).
        static func jsonObject(_ device: DeviceRecord, _ tokens: [TokenRecord]) -> [String: Any] {
            [
                "id": device.id, "name": device.name, "createdAt": device.createdAtMilliseconds,
                "tokens": tokens.map { token -> [String: Any] in
                    [
                        "token": token.token.hex, "bundleID": token.bundleID, "environment": token.environment.rawValue,
                        "registeredAt": token.registeredAtMilliseconds,
                        "unregisteredAt": OutputFormat.nullable(token.unregisteredAtMilliseconds),
                    ]
                },
            ]
        }

        /// One line per app (bundle id and environment): its active token, and how many it was issued.
        static func appLines(_ tokens: [TokenRecord]) -> [String] {
            var apps: [String: [TokenRecord]] = [:]
            var order: [String] = []
            for token in tokens {
                let app = "\(token.bundleID)  \(token.environment.rawValue)"
                if apps[app] == nil { order.append(app) }
                apps[app, default: []].append(token)
            }
            return order.map { app in
                let issued = apps[app] ?? []
                let active = issued.last(where: \.isActive).map(\.token.hex) ?? "no active token"
                return "\(app)  \(active)  (\(issued.count) issued)"
            }
        }
    }
}

/// Adds a device to the data directory's store (a new id and secret) and closes the store.
func addDevice(named name: String, data: DataDirectoryOptions) async throws -> DeviceCredentials {
    let store = try await openStore(data)
    do {
        let credentials = try await store.addDevice(name: name)
        await store.shutdown()
        return credentials
    } catch {
        await store.shutdown()
        throw error
    }
}
