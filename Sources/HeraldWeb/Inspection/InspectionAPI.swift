import HeraldCore
import HeraldDelivery
import HeraldStore
import Synchronization

/// The JSON inspection API on the web port (docs/inspection-api.json): devices and their tokens,
/// notifications and their delivery traces. Read-only.
///
/// Its routes are `GET`s under `/api/v1/`; bad parameters get `400` and unknown devices and notifications `404`,
/// with `{"error":"…"}` (``WebError``).
public struct InspectionAPI: Sendable {
    /// The prefix of every route.
    public static let prefix = "/api/v1/"

    let store: any NotificationStore
    let engine: DeliveryEngine
    let screens: ConsoleHub?
    let extraTrace: (@Sendable (NotificationID) -> [TraceEvent])?
    /// Which devices subscribe to which channels now, and the recent broadcasts.
    let channels: ChannelHub?
    /// The time kept broadcasts are compared with.
    let clock: any WallClock
    /// The waits in progress (`GET /api/v1/notifications/wait`): each asks the store again on every event, so they are
    /// bounded; one more is answered `503`.
    let waits: WaitCounter
    /// A cluster node's shared store: a device is `online` when any live node holds its link, and `nodes` says which.
    let cluster: (any ClusterStore)?

    /// An API reading `store`, with devices' `online` from the engine (a device with an open device-link session) and
    /// their `screenAt` from `screens` (the console's hub; `null` for every device without one); `extraTrace` gives
    /// events kept outside the store (the fault rules' `fault` events), merged into traces by time; at most
    /// `maximumWaits` waits run at once; `channels` gives each channel's subscribers and recent broadcasts; `cluster`, on
    /// a cluster node, answers for devices connected to other nodes (docs/cluster.md).
    public init(
        store: any NotificationStore,
        engine: DeliveryEngine,
        screens: ConsoleHub? = nil,
        extraTrace: (@Sendable (NotificationID) -> [TraceEvent])? = nil,
        channels: ChannelHub? = nil,
        clock: any WallClock = SystemWallClock(),
        maximumWaits: Int = 64,
        cluster: (any ClusterStore)? = nil
    ) {
        self.cluster = cluster
        self.store = store
        self.engine = engine
        self.screens = screens
        self.extraTrace = extraTrace
        self.channels = channels
        self.clock = clock
        self.waits = WaitCounter(limit: maximumWaits)
    }

    /// The notification's trace: the store's events and the extra ones, by time (the extra first at the same time).
    func trace(of id: NotificationID) async throws -> [TraceEvent] {
        let stored = try await store.trace(id)
        guard let extra = extraTrace?(id), !extra.isEmpty else { return stored }
        return (extra.map { (event: $0, rank: 0) } + stored.map { (event: $0, rank: 1) })
            .enumerated()
            .sorted { ($0.element.event.atMilliseconds, $0.element.rank, $0.offset) < ($1.element.event.atMilliseconds, $1.element.rank, $1.offset) }
            .map(\.element.event)
    }

    /// When the device's newest screen arrived: the console's hub's, or the cluster store's when newer (`shared`).
    func screenAt(_ deviceID: String, shared: [String: Int64]?) -> Int64? {
        let local = screens?.screen(deviceID: deviceID)?.updatedAtMilliseconds
        guard let other = shared?[deviceID] else { return local }
        return max(local ?? other, other)
    }

    /// Adds the routes to the web port's, each a `GET` with its operation id in docs/inspection-api.json.
    public func addRoutes(to routes: inout WebRoutes) {
        add("/api/v1/devices", "listDevices", to: &routes) { api, _ in try await api.listDevices() }
        add("/api/v1/devices/{id}", "getDevice", to: &routes) { api, request in try await api.device(id: request.parameter("id")) }
        add("/api/v1/devices/{id}/notifications", "listDeviceNotifications", to: &routes) { api, request in
            try await api.deviceNotifications(id: request.parameter("id"), request: request)
        }
        add("/api/v1/notifications", "listNotifications", to: &routes) { api, request in try await api.listNotifications(request: request) }
        add("/api/v1/notifications/wait", "waitForNotifications", to: &routes) { api, request in
            try await api.waitForNotifications(request: request)
        }
        add("/api/v1/notifications/{apnsID}", "getNotification", to: &routes) { api, request in
            try await api.notification(apnsID: request.parameter("apnsID"))
        }
        add("/api/v1/notifications/{apnsID}/trace", "getTrace", to: &routes) { api, request in
            try await api.trace(apnsID: request.parameter("apnsID"))
        }
        add("/api/v1/channels", "listChannels", to: &routes) { api, request in try await api.listChannels(request: request) }
    }

    /// Adds a `GET` route whose errors other than ``WebError`` answer `503` (cancelled) or `500` (the store failed).
    private func add(
        _ path: String,
        _ operationID: String,
        to routes: inout WebRoutes,
        _ handler: @escaping @Sendable (InspectionAPI, WebRequest) async throws -> WebResponse
    ) {
        routes.get(path, operationID: operationID) { [self] request in
            do {
                return try await handler(self, request)
            } catch let error as WebError {
                throw error
            } catch is CancellationError {
                throw WebError(status: 503, message: "the request was cancelled (the server is stopping or the client left)")
            } catch {
                throw WebError(status: 500, message: "the store failed: \(error)")
            }
        }
    }
}

/// How many of something run at once, up to a limit.
final class WaitCounter: Sendable {
    let limit: Int
    private let count = Atomic<Int>(0)

    init(limit: Int) { self.limit = limit }

    /// Takes a place; false (and nothing taken) when all `limit` are taken.
    func enter() -> Bool {
        let now = count.add(1, ordering: .acquiringAndReleasing).newValue
        guard now <= limit else {
            count.subtract(1, ordering: .acquiringAndReleasing)
            return false
        }
        return true
    }

    /// How many places are taken.
    var current: Int { count.load(ordering: .acquiring) }

    /// Gives back a place taken by ``enter()``.
    func leave() { count.subtract(1, ordering: .acquiringAndReleasing) }
}
