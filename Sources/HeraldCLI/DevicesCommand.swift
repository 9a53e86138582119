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
                        OutputFormat.jsonLine([
                            "id": .string(device.id), "name": .string(device.name), "createdAt": .integer(device.createdAtMilliseconds),
                            "secret": .string(credentials.secret),
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
        static let configuration = CommandConfiguration(
            abstract: "List devices, oldest first, with their active tokens: each app's device token, then its Live Activity tokens."
        )
        @OptionGroup var data: DataDirectoryOptions
        @Flag(help: "One JSON object per device and line: id, name, createdAt, tokens (every one, with kind and activityType).") var json = false

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
                        print(OutputFormat.jsonLine(Self.jsonObject(device, tokens)))
                    } else {
                        print("\(device.id)  added \(OutputFormat.iso8601(milliseconds: device.createdAtMilliseconds))  \(device.name)")
                        for line in Self.appLines(tokens) { print("    \(line)") }
                    }
                }
            }
        }

        /// The device as the inspection API shows it (without `online`, which only the server knows): every token,
        /// active or not, with its kind and activity type.
        static func jsonObject(_ device: DeviceRecord, _ tokens: [TokenRecord]) -> [String: JSONValue] {
            [
                "id": .string(device.id), "name": .string(device.name), "createdAt": .integer(device.createdAtMilliseconds),
                "tokens": .array(
                    tokens.map { token -> JSONValue in
                        [
                            "token": .string(token.token.hex), "bundleID": .string(token.bundleID),
                            "environment": .string(token.environment.rawValue), "registeredAt": .integer(token.registeredAtMilliseconds),
                            "unregisteredAt": .nullable(token.unregisteredAtMilliseconds),
                            "kind": .string(token.kind.rawValue), "activityType": .nullable(token.activityType),
                        ]
                    }
                ),
            ]
        }

        /// One line per active token, `<bundle id>  <environment>  <token>  <kind>[  <activity type>]`, each app's
        /// together: its device token first, then its push-to-start tokens, then its activities' tokens. An app with
        /// no active token is one line saying so, with how many it was issued.
        ///
        /// Why the device token first, in the third column: the README's recipe takes the third word of an app's
        /// first line (`awk '$1 == "com.example.app" { print $3; exit }'`), and an alert needs the device token.
        static func appLines(_ tokens: [TokenRecord]) -> [String] {
            var apps: [String: [TokenRecord]] = [:]
            var order: [String] = []
            for token in tokens {
                let app = "\(token.bundleID)  \(token.environment.rawValue)"
                if apps[app] == nil { order.append(app) }
                apps[app, default: []].append(token)
            }
            let kinds: [TokenKind] = [.device, .pushToStart, .activity]
            return order.flatMap { app -> [String] in
                let issued = apps[app] ?? []
                let active = issued.filter(\.isActive)
                guard !active.isEmpty else { return ["\(app)  no active token  (\(issued.count) issued)"] }
                let ranked = active.enumerated().sorted { left, right in
                    let rank = (kinds.firstIndex(of: left.element.kind) ?? kinds.count, kinds.firstIndex(of: right.element.kind) ?? kinds.count)
                    return rank.0 != rank.1 ? rank.0 < rank.1 : left.offset < right.offset
                }
                return ranked.map { _, token in
                    "\(app)  \(token.token.hex)  \(token.kind.rawValue)" + (token.activityType.map { "  \($0)" } ?? "")
                }
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
