/// What a fault rule does on the device side of one accepted notification (docs/faults.md, "Device-side effects"):
/// the provider's request is answered normally; the fault acts on the notification's delivery.
///
/// A pure value: the gateway's fault table makes it, the delivery engine carries it with the notification in memory
/// (a restart forgets it), and the device link tells the device the part that runs there (`extensionTimeout`).
public struct DeviceFault: Sendable, Hashable {
    /// The rule that applied, for the trace.
    public var ruleID: String
    /// `deviceOffline`: the device holding the token loses its link and is refused for this many milliseconds.
    public var offlineMilliseconds: Int64?
    /// `ackDelayMs`: the device's acknowledgement counts only this many milliseconds after it arrives.
    public var acknowledgementDelayMilliseconds: Int64?
    /// `extensionTimeout`: the device's notification service extension runs out of its time budget.
    public var extensionTimeout: Bool

    /// A device-side fault; give at least one effect.
    public init(
        ruleID: String = "",
        offlineMilliseconds: Int64? = nil,
        acknowledgementDelayMilliseconds: Int64? = nil,
        extensionTimeout: Bool = false
    ) {
        self.ruleID = ruleID
        self.offlineMilliseconds = offlineMilliseconds
        self.acknowledgementDelayMilliseconds = acknowledgementDelayMilliseconds
        self.extensionTimeout = extensionTimeout
    }
}
