import Foundation

/// What happened to an app's Live Activities, for the host to report (`herald device`, traces, the console).
public enum ActivityEvent: Hashable, Sendable {
    /// An activity started: by the app (``Activity/request(attributes:content:pushType:)``) or by a push-to-start push.
    case started(id: String, typeName: String, byPush: Bool)
    /// Its content changed; `alert` when the update shows one, `throttled` when a priority-10 update was over the
    /// budget (applied without its alert).
    case updated(id: String, alert: AlertConfiguration?, throttled: Bool)
    /// Its state changed (stale, active again, ended, dismissed).
    case stateChanged(id: String, state: ActivityState)
    /// It has a new push token (the provider's address for it).
    case pushTokenChanged(id: String, token: Data)
    /// The app has a new push-to-start token for a type of activity.
    case pushToStartTokenChanged(typeName: String, token: Data)
    /// A push was not applied: `reason` is a stable word (docs/live-activities.md), `detail` says more.
    case dropped(reason: String, detail: String)
}
