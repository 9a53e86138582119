extension SQLiteStore {
    /// How an ``SQLiteStore`` opens its file and batches its writes.
    public struct Configuration: Sendable {
        /// The folder holding `herald.sqlite` (and its `-wal` and `-shm` files); created when missing.
        public var dataDirectory: String
        /// How hard each commit pushes to disk. Default ``SynchronousMode/full``.
        public var synchronous: SynchronousMode
        /// How long a write waits for another process (the `herald` CLI) to release the database lock
        /// before it fails with ``StoreError/databaseBusy``. Default 5 s.
        public var busyTimeout: Duration
        /// The most notifications one group-commit transaction takes. Default 2000.
        public var maximumBatchSize: Int
        /// The most notifications that may wait for a commit; more fail at once with
        /// ``StoreError/overloaded``. Default 100 000.
        public var maximumPendingNotifications: Int
        /// How old the token and key caches may get, in milliseconds, before a lookup checks the file for
        /// changes made by another process. A cache miss checks the file, and its answer "unknown" is remembered for
        /// as long. Default 200.
        public var registryRefreshIntervalMilliseconds: Int64
        /// The most concurrent read connections. Default 4.
        public var maximumReaderCount: Int
        /// The disk budget: the most bytes the database file's pages in use may take; `nil`: no budget. Default
        /// ``defaultMaximumStoreBytes`` (1 GiB).
        ///
        /// At the budget, new notifications fail with ``StoreError/storeFull`` (the gateway answers `503`); the
        /// delivery journal may go a little over it (``StoreBudget``), so that delivering what is stored never
        /// waits for space. Pruning finished notifications to stay under it is the server's retention service's
        /// job (docs/delivery.md, "Retention").
        public var maximumStoreBytes: Int64?

        /// The default disk budget: 1 GiB.
        public static let defaultMaximumStoreBytes: Int64 = 1024 * 1024 * 1024

        /// A configuration with the defaults for the given data directory.
        public init(dataDirectory: String) {
            self.dataDirectory = dataDirectory
            self.synchronous = .full
            self.busyTimeout = .seconds(5)
            self.maximumBatchSize = 2000
            self.maximumPendingNotifications = 100_000
            self.registryRefreshIntervalMilliseconds = 200
            self.maximumReaderCount = 4
            self.maximumStoreBytes = Self.defaultMaximumStoreBytes
        }

        /// The database file: `<dataDirectory>/herald.sqlite`.
        public var databasePath: String {
            dataDirectory.hasSuffix("/") ? dataDirectory + "herald.sqlite" : dataDirectory + "/herald.sqlite"
        }
    }

    /// SQLite's `synchronous` setting for the store's connections.
    public struct SynchronousMode: Hashable, Sendable, CustomStringConvertible {
        /// The pragma's value.
        public let rawValue: String

        private init(rawValue: String) {
            self.rawValue = rawValue
        }

        /// Every commit is on disk before it is reported (an `fsync` per group commit): a `200` survives
        /// a power loss. The default, because APNs's `200` promises the notification was accepted.
        public static let full = Self(rawValue: "FULL")
        /// Commits survive a crash of the process but the last ones may be lost on power loss; faster.
        public static let normal = Self(rawValue: "NORMAL")

        /// The pragma's value.
        public var description: String { rawValue }
    }
}
