/// Why the simulated device refused a request from its host (a user interaction, a state change).
public struct SimulatorError: Error, Sendable, Hashable, CustomStringConvertible {
    /// The kind of problem. The set can grow; match on the static constants.
    public struct Code: Sendable, Hashable, CustomStringConvertible {
        private enum Base: String, Sendable, Hashable {
            case unknownApp, refused
        }

        private let base: Base

        /// No app with that bundle id is installed.
        public static let unknownApp = Code(base: .unknownApp)
        /// The runtime refused the interaction: no such notification, no such action, a text
        /// action without text, a locked device, no expanded interface or media button.
        public static let refused = Code(base: .refused)

        /// The code's name.
        public var description: String { base.rawValue }
    }

    /// The kind of problem.
    public let code: Code
    /// What went wrong, for a person.
    public let message: String

    init(_ code: Code, _ message: String) {
        self.code = code
        self.message = message
    }

    /// The message.
    public var description: String { message }
}
