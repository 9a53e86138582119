import NIOCore

extension DeviceLinkClient {
    /// Where a client connects and how long it waits.
    public struct Configuration: Sendable {
        /// The server's host name or address.
        public var host: String
        /// The server's web port (`herald serve --link-port`, 2196 by default).
        public var port: Int
        /// The WebSocket path.
        public var path = "/device-link"
        /// How long connecting and the WebSocket upgrade may take.
        public var connectTimeout: TimeAmount = .seconds(10)
        /// How long `hello`, `register` and `unregister` wait for their answer.
        public var requestTimeout: TimeAmount = .seconds(10)
        /// The largest message accepted from the server; a larger one is dropped (and logged).
        public var maximumMessageSize = 1 << 20

        /// A configuration for the server at `host:port`.
        public init(host: String, port: Int) {
            self.host = host
            self.port = port
        }
    }
}
