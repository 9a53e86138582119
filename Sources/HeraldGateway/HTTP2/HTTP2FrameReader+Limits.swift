import HeraldHTTP2

extension HTTP2FrameReader {
    /// A reader held to the gateway's bounds on header blocks (docs/provider-api.md, "Limits").
    init(expectingPreface: Bool = true, limits: GatewayConfiguration.Limits = .init()) {
        self.init(
            expectingPreface: expectingPreface,
            maximumHeaderBlockSize: limits.maximumHeaderBlockSize,
            maximumContinuationFrames: limits.maximumContinuationFrames
        )
    }
}
