import Foundation
import HeraldCore
import HeraldDeviceHost
import HeraldDeviceLink
import HeraldSimulator

/// The life of `herald device`: a ``LinkedDevice`` whose events are printed.
struct DeviceLinkLoop: Sendable {
    var endpoint: DeviceLinkEndpoint
    var hello: DeviceLinkHello
    var device: SimulatedDevice
    var output: DeviceOutput
    var maximumBackoff: Double

    /// Runs until the process is stopped, or fails when the server refuses the device.
    func run() async throws {
        var link = DeviceLinkClient.Configuration(host: endpoint.host, port: endpoint.port)
        link.path = endpoint.path
        var configuration = LinkedDevice.Configuration(link: link, hello: hello)
        configuration.maximumBackoff = .milliseconds(Int64(maximumBackoff * 1000))
        let output = self.output
        let endpoint = self.endpoint
        let linked = LinkedDevice(device: device, configuration: configuration) { event in
            output.show(event, endpoint: endpoint)
        }
        do {
            try await linked.run()
        } catch let error as DeviceLinkError {
            throw CLIFailure("the server refused the device: \(error.message)")
        }
    }
}

extension DeviceOutput {
    /// Prints one event of the linked device.
    func show(_ event: LinkedDeviceEvent, endpoint: DeviceLinkEndpoint) {
        switch event {
        case .connected(let welcome): connected(welcome)
        case .enrolled(let welcome, let secret): enrolled(welcome, secret: secret)
        case .registered(let registration): registered(registration)
        case .notification(let notification): self.notification(notification)
        case .report(let report): self.report(report)
        case .serverError(let error): status("server error \(error.code): \(error.message)")
        case .interacted(let interaction, let error):
            let target = [interaction.identifier, interaction.action, interaction.state].compactMap { $0 }.joined(separator: " ")
            let what = "console: \(interaction.kind) \(target) in \(interaction.bundleID)"
            status(error.map { "\(what) refused: \($0)" } ?? what)
        case .linkClosed: status("link closed; reconnecting")
        case .unreachable(let error, let delay):
            let seconds = Double(delay.components.seconds) + Double(delay.components.attoseconds) / 1e18
            status("cannot reach \(endpoint.host):\(endpoint.port): \(error); retrying in \(String(format: "%.1f", seconds)) s")
        }
    }
}
