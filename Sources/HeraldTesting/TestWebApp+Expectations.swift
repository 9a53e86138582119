import HeraldCore
import HeraldDeviceHost
import HeraldSimulator

extension TestWebApp {
    /// Waits until the web app shows a notification with this title, and returns it.
    ///
    /// - Throws: ``HeraldExpectationFailure`` after `timeout`, listing what it shows instead.
    @discardableResult
    public func expectNotification(titled title: String, within timeout: Duration = .seconds(5)) async throws -> WebAppNotification {
        try await expectNotification(within: timeout, "titled \"\(title)\"") { $0.title == title }
    }

    /// Waits until the web app shows a notification that `matches`, and returns it.
    ///
    /// - Parameter description: how the expected notification is described in the failure message.
    /// - Throws: ``HeraldExpectationFailure`` after `timeout`, listing what it shows instead.
    @discardableResult
    public func expectNotification(
        within timeout: Duration = .seconds(5),
        _ description: String = "matching",
        where matches: @Sendable (WebAppNotification) -> Bool
    ) async throws -> WebAppNotification {
        try await poll(within: timeout) {
            await "\(self.named) shows no notification \(description) within \(timeout)" + self.listing()
        } check: {
            await self.notifications.first(where: matches)
        }
    }

    /// Waits `timeout` and checks that the web app shows no notification it did not show when the wait began — or,
    /// with a title, none with that title.
    ///
    /// A "nothing happens" wait: to know a particular push showed nothing, ``expectReport(_:for:within:)`` with
    /// `.notShown` returns as soon as the device says so.
    ///
    /// - Throws: ``HeraldExpectationFailure`` as soon as one shows.
    public func expectNoNotification(titled title: String? = nil, during timeout: Duration = .milliseconds(500)) async throws {
        let before = Set(await notifications.map(\.id))
        let clock = ContinuousClock()
        let deadline = clock.now + timeout
        while true {
            let unexpected = await notifications.first { shown in title.map { shown.title == $0 } ?? !before.contains(shown.id) }
            if let unexpected {
                throw HeraldExpectationFailure("\(named) shows \"\(unexpected.title)\", which was not expected")
            }
            if clock.now >= deadline { return }
            try await Task.sleep(for: .milliseconds(20))
        }
    }

    /// Waits until the device revokes the subscription — Safari's rule: ``WebApp/maximumSilentPushes`` pushes that
    /// showed nothing — and returns why; the device then tells the push service, which answers the endpoint with
    /// `410 Unregistered`.
    ///
    /// - Throws: ``HeraldExpectationFailure`` after `timeout`, with the silent pushes counted so far.
    @discardableResult
    public func expectRevoked(within timeout: Duration = .seconds(5)) async throws -> String {
        try await poll(within: timeout) {
            let counted = await self.silentPushes
            return "\(self.named) was not revoked within \(timeout) (\(counted) pushes showed nothing; the device revokes at"
                + " \(self.app.configuration.maximumSilentPushes))"
        } check: {
            if case .revoked(let reason) = await self.subscription { return reason }
            return nil
        }
    }

    /// Waits until the web app reports `event` about a message — `.decrypted`, `.shown` or `.notShown` (its `reason`
    /// in `detail`) — and returns the first such report.
    ///
    /// - Parameter apnsID: the message's `apns-id`, from the push service's `201`.
    /// - Throws: ``HeraldExpectationFailure`` after `timeout`, listing the reports made about it instead.
    @discardableResult
    public func expectReport(_ event: DeviceReport.Event, for apnsID: String, within timeout: Duration = .seconds(5)) async throws -> DeviceReport {
        guard NotificationID(apnsID) != nil else {
            throw HeraldExpectationFailure("'\(apnsID)' is not an apns-id (a UUID)")
        }
        return try await poll(within: timeout) {
            let seen = self.reports(for: apnsID).map(\.event.rawValue)
            return "\(self.named) made no \(event) report about \(apnsID) within \(timeout)"
                + (seen.isEmpty ? " (it made none about it)" : " (it reported \(seen.joined(separator: ", ")))")
        } check: {
            self.reports(for: apnsID).first { $0.event == event }
        }
    }

    /// The user taps a notification the web app shows, by its id (``WebAppNotification/id``): a declarative one opens
    /// its `navigate` URL, a service worker's runs its `notificationclick`. The `action` report lands in the
    /// message's trace; returns the URLs opened (`clients.openWindow`, or `navigate`).
    ///
    /// - Throws: ``HeraldExpectationFailure`` when no notification shown has the id, or when the service worker's
    ///   `notificationclick` failed (its errors).
    @discardableResult
    public func tap(_ id: String) async throws -> [String] {
        let report: DeviceReport
        do {
            report = try await app.tap(id)
        } catch {
            throw HeraldExpectationFailure("\(named): \(error.description)")
        }
        linked.sendReports([report])
        if let errors = report.detail["errors"]?.arrayValue, !errors.isEmpty {
            let text = errors.compactMap(\.stringValue).joined(separator: "; ")
            throw HeraldExpectationFailure("\(named): the service worker's notificationclick failed: \(text)")
        }
        return report.detail["opened"]?.arrayValue?.compactMap(\.stringValue) ?? []
    }

    /// The user removes the web app's permission for notifications (Safari's Settings → Websites → Notifications): what
    /// arrives from then on is dropped with a `not-shown` report, and the push service goes on answering `201`, as
    /// Apple's is reported to — unless the server answers `410` for it (`--web-push-removed-permission unregistered`),
    /// when the device also unsubscribes (docs/web-push.md).
    public func removePermission() async throws {
        do {
            try await linked.removePermission(of: app)
        } catch {
            throw HeraldExpectationFailure("\(named): telling the push service of the removed permission failed: \(error)")
        }
    }
}
