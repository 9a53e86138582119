import ArgumentParser
import Foundation
import HeraldAuth

/// `herald certs`: provider client certificates (certificate authentication), signed by the development CA.
struct CertsCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "certs",
        abstract: "Issue provider client certificates from the development CA.",
        subcommands: [Issue.self]
    )

    struct Issue: AsyncParsableCommand {
        static let configuration = CommandConfiguration(abstract: "Issue a client certificate for one or more topics.")
        @OptionGroup var data: DataDirectoryOptions
        @Option(help: "A topic (bundle id); repeat for several.") var topic: [String]
        @Option(help: "sandbox, production or both.") var environment = "both"
        @Option(help: "Where to write the certificate (PEM): what `herald send --cert` reads.") var cert: String
        @Option(
            name: .customLong("cert-key"),
            help: "Where to write the certificate's private key (PEM): what `herald send --cert-key` reads."
        )
        var certKey: String?
        /// `--cert-key`'s old name, kept (hidden) so that scripts written for it still work.
        @Option(name: .customLong("key"), help: .hidden) var deprecatedKey: String?

        /// The private key's path: `--cert-key`, or its old name `--key`.
        func keyPath() throws -> String {
            switch (certKey, deprecatedKey) {
            case (let path?, nil), (nil, let path?): return path
            case (_?, _?): throw CLIFailure("give --cert-key only (--key is its old name)")
            case (nil, nil): throw CLIFailure("give --cert-key: where to write the certificate's private key (herald send --cert-key reads it)")
            }
        }

        func run() async throws {
            try await reportingErrors {
                guard !topic.isEmpty else { throw CLIFailure("give at least one --topic") }
                let scope: EnvironmentScope =
                    switch environment {
                    case "sandbox": .sandbox
                    case "production": .production
                    case "both": .both
                    default: throw CLIFailure("unknown environment '\(environment)' (expected sandbox, production or both)")
                    }
                let key = try keyPath()
                try data.requireExisting()
                try SystemError.requireWritable(cert)
                try SystemError.requireWritable(key)
                let pki = try DevelopmentPKI.loadOrCreate(in: data.tlsDirectory, now: Date())
                let issued = try pki.authority.issueProviderCertificate(topics: topic, environments: scope, teamID: nil, now: Date())
                try issued.write(certificateTo: URL(fileURLWithPath: cert), privateKeyTo: URL(fileURLWithPath: key))
                print("issued a certificate for \(topic.joined(separator: ", ")): \(cert), \(key)")
            }
        }
    }
}
