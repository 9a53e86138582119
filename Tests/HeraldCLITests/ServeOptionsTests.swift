import Testing

@testable import HeraldCLI

/// `herald serve`'s option parsing, without starting anything.
@Suite("herald serve: options")
struct ServeOptionsTests {
    @Test("-1 turns a port off in both spellings, --tls-port -1 and --tls-port=-1")
    func negativeOnePortDisables() throws {
        let spaced = try ServeCommand.parse(["--tls-port", "-1", "--h2c-port", "-1", "--link-port", "-1"])
        #expect(spaced.tlsPort == -1 && spaced.cleartextPort == -1 && spaced.linkPort == -1)
        let joined = try ServeCommand.parse(["--tls-port=-1", "--h2c-port=0", "--link-port=2296"])
        #expect(joined.tlsPort == -1 && joined.cleartextPort == 0 && joined.linkPort == 2296)
    }

    @Test("the defaults: TLS 2197, cleartext 2195, web port 2196")
    func defaultPorts() throws {
        let defaults = try ServeCommand.parse([])
        #expect(defaults.tlsPort == 2197 && defaults.cleartextPort == 2195 && defaults.linkPort == 2196)
    }

    @Test("a port that is not a number is still an error")
    func nonNumericPort() {
        #expect(throws: (any Error).self) { try ServeCommand.parse(["--tls-port", "--h2c-port"]) }
        #expect(throws: (any Error).self) { try ServeCommand.parse(["--link-port", "web"]) }
    }
}
