import Foundation

extension DeviceRuntime {
    /// The user opens the app from the home screen: it launches (or returns) to the foreground,
    /// and a held background push is delivered.
    @discardableResult
    public func launch() async -> [AppCall] {
        let start = callLog.count
        bringToForeground(launchOptions: nil)
        await deliverHeldPush()
        return Array(callLog[start...])
    }

    /// The user leaves the app: foreground → background.
    public func moveToBackground() {
        guard application.lifecycleState == .foreground, let delegate = application.delegate else { return }
        let call = AppObject(object: delegate)
        setState(.background)
        recordCall(.didEnterBackground)
        withCurrentCenter { call.object.applicationDidEnterBackground(application) }
    }

    /// The system suspends the app: background → suspended.
    public func suspend() {
        if application.lifecycleState == .foreground { moveToBackground() }
        if application.lifecycleState == .background { setState(.suspended) }
    }

    /// The user force-quits the app in the app switcher.
    public func terminateByUser() { end(as: .terminatedByUser) }

    /// The system ends the app (for example for memory); a background push may launch it again.
    public func terminateBySystem() { end(as: .notRunning) }

    private func end(as state: AppLifecycleState) {
        application.setDelegate(nil)
        center.delegate = nil
        expanded = nil
        if heldBackgroundPush != nil {
            heldBackgroundPush = nil
            record(.discarded, nil, "the app was terminated")
        }
        setState(state)
    }

    /// Starts the app process if it is not running; returns whether it was started.
    @discardableResult
    func launchProcess(into state: AppLifecycleState, launchOptions: [UIApplication.LaunchOptionsKey: Any]?) -> Bool {
        guard [.notRunning, .terminatedByUser].contains(application.lifecycleState) else { return false }
        let call = makeAppDelegate.map { AppObject(object: $0()) }
        application.setDelegate(call?.object)
        setState(state)
        recordCall(.didFinishLaunching)
        withCurrentCenter { _ = call?.object.application(application, didFinishLaunchingWithOptions: launchOptions) }
        if application.isRegisteredForRemoteNotifications, let call {
            recordCall(.didRegisterForRemoteNotifications)
            withCurrentCenter { call.object.application(application, didRegisterForRemoteNotificationsWithDeviceToken: configuration.deviceToken) }
        }
        return true
    }

    /// Brings the app to the foreground, launching it if needed.
    func bringToForeground(launchOptions: [UIApplication.LaunchOptionsKey: Any]?) {
        switch application.lifecycleState {
        case .foreground:
            return
        case .notRunning, .terminatedByUser:
            launchProcess(into: .foreground, launchOptions: launchOptions)
        case .background, .suspended:
            setState(.foreground)
            if let delegate = application.delegate {
                let call = AppObject(object: delegate)
                recordCall(.willEnterForeground)
                withCurrentCenter { call.object.applicationWillEnterForeground(application) }
            }
        }
        if let delegate = application.delegate {
            let call = AppObject(object: delegate)
            recordCall(.didBecomeActive)
            withCurrentCenter { call.object.applicationDidBecomeActive(application) }
        }
    }

    /// Wakes the app into the background for a push or an action; returns the state to go back to
    /// afterwards (suspended when it was woken), or nil when it cannot run.
    func wakeIntoBackground() -> AppLifecycleState? {
        switch application.lifecycleState {
        case .foreground, .background:
            return application.lifecycleState
        case .suspended:
            setState(.background)
            return .suspended
        case .notRunning:
            launchProcess(into: .background, launchOptions: nil)
            return .suspended
        case .terminatedByUser:
            return nil
        }
    }

    /// Calls `application(_:didReceiveRemoteNotification:fetchCompletionHandler:)` with its budget.
    func callFetch(_ payload: RemotePayload, identifier: String?) async -> (result: UIBackgroundFetchResult?, expired: Bool) {
        recordCall(.didReceiveRemoteNotification, identifier)
        guard let delegate = application.delegate else { return (nil, false) }
        let call = AppObject(object: delegate)
        let application = application
        let values = payload.dictionary
        let (result, implemented) = await callOptional(
            budget: configuration.backgroundFetchBudget,
            completionForm: { handler in
                call.object.application(application, didReceiveRemoteNotification: values.userInfoValue, fetchCompletionHandler: handler)
            },
            asyncForm: { await call.object.application(application, didReceiveRemoteNotification: values.userInfoValue) }
        )
        if implemented && result == nil {
            record(.expired, identifier, "fetch completion handler not called within \(Int(configuration.backgroundFetchBudget)) s")
            return (nil, true)
        }
        return (result, false)
    }

    /// Whether a background wake fits in the budget now (and counts it if so).
    func takeBackgroundWake() -> Bool {
        guard let budget = configuration.backgroundPushBudget else { return true }
        let now = clock.now
        backgroundWakes.removeAll { now.timeIntervalSince($0) >= budget.window }
        guard backgroundWakes.count < budget.limit else { return false }
        backgroundWakes.append(now)
        return true
    }

    func deliverHeldPush() async {
        guard let held = heldBackgroundPush, application.lifecycleState == .foreground else { return }
        heldBackgroundPush = nil
        _ = await callFetch(held, identifier: nil)
    }
}
