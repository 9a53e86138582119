import Foundation

extension DeviceRuntime {
    /// Delivers every pending local request due at the clock's current time (requests without a
    /// trigger are due at once), oldest fire date first, and returns their identifiers. Repeating
    /// requests stay scheduled. Call it after advancing the clock.
    @discardableResult
    public func fireDueNotifications() async -> [String] {
        let due = center.state.withLock { $0.takeDue(at: clock.now) }
        for (request, date) in due {
            await presentLocal(request, date: date)
        }
        return due.map(\.0.identifier)
    }

    /// The earliest date at which a pending request fires, if any.
    public var nextFireDate: Date? {
        center.state.withLock { $0.pending.compactMap(\.nextFireDate).min() }
    }

    /// The location source: the device is now at `coordinate`. Location triggers fire on
    /// entering (`notifyOnEntry`) or leaving (`notifyOnExit`) their region; before the first
    /// update the device counts as outside every region. Nothing fires without location
    /// authorization. Returns the identifiers delivered.
    @discardableResult
    public func updateLocation(_ coordinate: CLLocationCoordinate2D) async -> [String] {
        let previous = lastLocation
        lastLocation = coordinate
        guard configuration.locationAuthorized else { return [] }
        let fired = center.state.withLock { state -> [UNNotificationRequest] in
            var fired: [UNNotificationRequest] = []
            state.pending.removeAll { entry in
                guard let trigger = entry.request.trigger as? UNLocationNotificationTrigger else { return false }
                let region = trigger.regionValue
                let wasInside = previous.map(region.contains) ?? false
                let isInside = region.contains(coordinate)
                let crossed = (!wasInside && isInside && region.notifyOnEntry) || (wasInside && !isInside && region.notifyOnExit)
                guard crossed else { return false }
                fired.append(entry.request)
                return !trigger.repeats
            }
            return fired
        }
        for request in fired {
            await presentLocal(request, date: clock.now)
        }
        return fired.map(\.identifier)
    }

    func presentLocal(_ request: UNNotificationRequest, date: Date) async {
        guard center.state.withLock({ $0.authorizationStatus.allowsDelivery }) else {
            record(.notDisplayed, request.identifier, "notifications are not authorized")
            return
        }
        let content = request.content.value
        let options =
            application.lifecycleState == .foreground
            ? await foregroundPresentation(for: UNNotification(request: request, date: date))
            : systemPresentation(for: content)
        present(request, options: options, isRemote: false, date: date)
    }
}
