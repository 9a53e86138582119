import HeraldTesting

extension HeraldTestServer.Options {
    /// The provider API on h2c only, no TLS port.
    static var cleartextOnly: Self {
        var options = Self()
        options.tls = false
        return options
    }
}
