import HeraldSimulator

extension LinkedDevice {
    /// Sends reports of interactions a host made on ``device`` directly (expanding a notification, the media
    /// button, …) on the open link, as the built-in interactions do, so that they land in the trace; reports
    /// that name no notification are only told as events.
    public func sendReports(_ reports: [DeviceReport]) {
        deliver(reports)
    }
}
