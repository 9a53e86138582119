import Hummingbird
import Logging

/// The request context of the web port's router: Hummingbird's core values (logger, path captures), nothing more.
public struct WebRequestContext: RequestContext {
    public var coreContext: CoreRequestContextStorage

    /// The context of a request on a connection.
    public init(source: ApplicationRequestContextSource) {
        coreContext = .init(source: source)
    }

    /// The context of a request answered in-process (``WebRouter/respond(to:)``).
    init(logger: Logger) {
        var logger = logger
        logger[metadataKey: "hb.request.id"] = "in-process"
        coreContext = .init(source: InProcessSource(logger: logger))
    }

    private struct InProcessSource: RequestContextSource {
        let logger: Logger
    }
}
