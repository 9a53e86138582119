import HeraldCore
import NIOCore

/// Turns NIO's idle event into Herald's GOAWAY with `IdleTimeout` (spec §A.5 lists it as a GOAWAY reason).
final class IdleTimeoutHandler: ChannelInboundHandler {
    typealias InboundIn = NIOAny

    func userInboundEventTriggered(context: ChannelHandlerContext, event: Any) {
        if event is IdleStateHandler.IdleStateEvent {
            context.fireUserInboundEventTriggered(ProviderConnectionClosing(reason: .idleTimeout))
        } else {
            context.fireUserInboundEventTriggered(event)
        }
    }
}
