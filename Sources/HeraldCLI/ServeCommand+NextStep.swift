/// The last line of `herald serve`'s banner: what to run next, in another terminal, with the options this server needs
/// (a newcomer's banner used to end at `herald: ready`; issue 37).
extension ServeCommand {
    /// The bound ports and data directory the next commands must name when they are not the defaults.
    struct Listening: Equatable {
        var host: String
        var tlsPort: Int?
        var cleartextPort: Int?
        var webPort: Int?
        /// The data directory as given (`--data-dir`, `HERALD_DATA_DIR` or `./herald-data`).
        var dataDirectory: String
    }

    /// `next: in another terminal, herald device --app com.example.app (…), then herald send …`: the device command
    /// when the web port is on, and `herald send` with `--server` when the provider port is not `https://localhost:2197`.
    static func nextStep(_ listening: Listening) -> String {
        let data = listening.dataDirectory == DataDirectoryOptions.defaultPath ? "" : " --data-dir \(shellWord(listening.dataDirectory))"
        // A server on every address is reached on loopback; the development certificate names localhost.
        let named = ["0.0.0.0", "::", "localhost"].contains(listening.host) ? "127.0.0.1" : listening.host
        let host = named.contains(":") ? "[\(named)]" : named
        let server: String
        if let tls = listening.tlsPort {
            server = host == "127.0.0.1" && tls == 2197 ? "" : " --server https://\(host == "127.0.0.1" ? "localhost" : host):\(tls)"
        } else if let cleartext = listening.cleartextPort {
            server = " --server http://\(host):\(cleartext)"
        } else {
            return "next: nothing can send here (no provider port: give --tls-port or --h2c-port)"
        }
        guard let web = listening.webPort else {
            return "next: in another terminal, `herald tokens register\(data) --topic com.example.app` for a token, "
                + "then `herald send\(data)\(server) --token TOKEN --topic com.example.app --alert Hello`"
        }
        let link = host == "127.0.0.1" && web == 2196 ? "" : " --server ws://\(host):\(web)/device-link"
        return "next: in another terminal, `herald device\(data)\(link) --app com.example.app` (a simulated iPhone), "
            + "then `herald send\(data)\(server) --topic com.example.app --alert Hello`"
    }

    /// `text` as one shell word: as it is when it holds only safe characters, else in single quotes.
    static func shellWord(_ text: String) -> String {
        let safe = Set("abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789-_./:@%+=,")
        guard text.isEmpty || !text.allSatisfy(safe.contains) else { return text }
        return "'" + text.replacingOccurrences(of: "'", with: #"'\''"#) + "'"
    }
}
