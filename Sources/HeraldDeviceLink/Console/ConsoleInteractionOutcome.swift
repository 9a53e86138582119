/// How an interaction the web console sent to a device went (HeraldWeb's `ConsoleHub.InteractionOutcome`).
///
/// Here rather than in HeraldWeb because a cluster node relays it to the node that asked (``ConsoleRelayMessage``).
public enum ConsoleInteractionOutcome: Sendable, Hashable {
    /// The device ran it.
    case done
    /// The device refused it, with its message.
    case refused(String)
    /// The device has no open device link.
    case offline
    /// No `interacted` came in time.
    case timedOut
    /// On a cluster node: the interaction could not be handed to the node holding the device's link (the store did
    /// not answer, the interaction is too large to relay, or that node runs too many already), with why.
    case unreachable(String)
}
