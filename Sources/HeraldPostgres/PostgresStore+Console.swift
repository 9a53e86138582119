import HeraldCore
import HeraldStore
import NIOCore
import PostgresNIO

/// The web console of a cluster node (docs/cluster.md, "The console"): screens in `device_screen`, messages by
/// `NOTIFY` on one channel every node listens on.
extension PostgresStore: ConsoleClusterStore {
    /// `NOTIFY`'s payload holds less than 8000 bytes.
    public var maximumConsoleMessageBytes: Int { 7_900 }

    public func saveScreens(_ screens: [SharedScreen]) async throws {
        _ = try clusterSettings()
        // Each device once (an upsert may not touch a row twice): its newest.
        var newest: [String: SharedScreen] = [:]
        for screen in screens where (newest[screen.deviceID]?.updatedAtMilliseconds ?? .min) <= screen.updatedAtMilliseconds {
            newest[screen.deviceID] = screen
        }
        guard !newest.isEmpty else { return }
        let kept = Array(newest.values)
        let devices = kept.map { $0.deviceID.lowercased() }
        let bodies = kept.map { ByteBuffer(bytes: $0.json) }
        let times = kept.map(\.updatedAtMilliseconds)
        let nodes = kept.map(\.nodeID)
        _ = try await rows(
            """
            INSERT INTO device_screen (device_id, screen, updated_at, node_id)
            SELECT s.device_id, s.screen, s.updated_at, s.node_id
            FROM unnest(\(devices)::text[], \(bodies)::bytea[], \(times)::bigint[], \(nodes)::text[])
                AS s (device_id, screen, updated_at, node_id)
            WHERE EXISTS (SELECT 1 FROM device AS d WHERE d.id = s.device_id)
            ORDER BY s.device_id
            ON CONFLICT (device_id) DO UPDATE
                SET screen = EXCLUDED.screen, updated_at = EXCLUDED.updated_at, node_id = EXCLUDED.node_id
                WHERE device_screen.updated_at <= EXCLUDED.updated_at
            """
        )
    }

    public func sharedScreen(deviceID: String) async throws -> SharedScreen? {
        _ = try clusterSettings()
        guard
            let row = try await rows(
                "SELECT screen, updated_at, node_id FROM device_screen WHERE device_id = \(deviceID.lowercased())"
            ).first
        else { return nil }
        let (screen, updatedAt, node) = try row.decode((ByteBuffer, Int64, String).self)
        return SharedScreen(deviceID: deviceID.lowercased(), json: Array(buffer: screen), updatedAtMilliseconds: updatedAt, nodeID: node)
    }

    public func sharedScreenTimes(deviceID: String?) async throws -> [String: Int64] {
        _ = try clusterSettings()
        var times: [String: Int64] = [:]
        let device = deviceID?.lowercased()
        for row in try await rows(
            "SELECT device_id, updated_at FROM device_screen WHERE \(device)::text IS NULL OR device_id = \(device)::text"
        ) {
            let (device, updatedAt) = try row.decode((String, Int64).self)
            times[device] = updatedAt
        }
        return times
    }

    public func sendConsoleMessage(_ message: String) async throws {
        _ = try clusterSettings()
        guard message.utf8.count <= maximumConsoleMessageBytes else {
            throw StoreError.invalidRecord.with(detail: "a console message of \(message.utf8.count) bytes (at most \(maximumConsoleMessageBytes))")
        }
        _ = try await rows("SELECT pg_notify(\(Configuration.Cluster.consoleChannel), \(message))")
    }

    public func consoleMessages() -> AsyncStream<String> {
        listenStream(channel: { _ in Configuration.Cluster.consoleChannel }, what: "console messages", read: { $0 })
    }
}
