import ArgumentParser

/// A command line whose command is misspelt (`herald sned`), said in one line with the nearest commands: ArgumentParser
/// suggests options (`--topc`: "did you mean '--topic'?") but says only "Unexpected argument" for a command.
enum CommandSuggestion {
    /// The line for `arguments` (without the program name) when one of its leading words names no command of
    /// `root`'s tree where a command is expected; `nil` when every leading word is a command, or an option comes first.
    static func message(for arguments: [String], root: any ParsableCommand.Type) -> String? {
        var command = root
        var path = [root._commandName]
        for word in arguments {
            let subcommands = command.configuration.subcommands
            guard !subcommands.isEmpty, !word.hasPrefix("-"), word != "help" else { return nil }
            guard let next = subcommands.first(where: { $0._commandName == word }) else {
                let names = subcommands.map { $0._commandName }
                let help = "see '\(path.joined(separator: " ")) --help'"
                let nearest = nearest(to: word, in: names)
                guard !nearest.isEmpty else { return "Error: Unknown command '\(word)' (\(help) for the commands)" }
                let choices = nearest.map { "'\($0)'" }.joined(separator: " or ")
                return "Error: Unknown command '\(word)'. Did you mean \(choices)? (\(help))"
            }
            command = next
            path.append(word)
        }
        return nil
    }

    /// The names at the smallest edit distance from `word` (a swap of two neighbours counts once), if it is at most 2;
    /// else the names that begin with it.
    static func nearest(to word: String, in names: [String]) -> [String] {
        let distances = names.map { (name: $0, distance: distance(Array(word.lowercased()), Array($0))) }
        guard let best = distances.map(\.distance).min(), best <= 2 else {
            // A beginning: `herald dev` → device or devices.
            return word.count >= 2 ? names.filter { $0.hasPrefix(word.lowercased()) } : []
        }
        return distances.filter { $0.distance == best }.map(\.name)
    }

    /// The optimal string alignment distance: insertions, deletions, substitutions and swaps of neighbours.
    static func distance(_ a: [Character], _ b: [Character]) -> Int {
        guard !a.isEmpty else { return b.count }
        guard !b.isEmpty else { return a.count }
        var table = [[Int]](repeating: [Int](repeating: 0, count: b.count + 1), count: a.count + 1)
        for i in 0...a.count { table[i][0] = i }
        for j in 0...b.count { table[0][j] = j }
        for i in 1...a.count {
            for j in 1...b.count {
                let cost = a[i - 1] == b[j - 1] ? 0 : 1
                table[i][j] = min(table[i - 1][j] + 1, table[i][j - 1] + 1, table[i - 1][j - 1] + cost)
                if i > 1, j > 1, a[i - 1] == b[j - 2], a[i - 2] == b[j - 1] {
                    table[i][j] = min(table[i][j], table[i - 2][j - 2] + 1)
                }
            }
        }
        return table[a.count][b.count]
    }
}
