/// The disk budget in pages of the store's file, from ``SQLiteStore/Configuration/maximumStoreBytes``.
///
/// Two limits: new notifications are refused once the pages in use reach ``acceptPages`` (the group commit checks
/// before each batch: two page counts read, no work per notification); every write fails with `SQLITE_FULL` past
/// ``hardPages`` (SQLite's `max_page_count`, on the writer's connection). The space between them is the delivery
/// journal's: when only stored notifications fill the budget, recording their delivery (state and trace) still
/// fits, and the retention service can then prune them. Why pages in use and not the file's size: free pages are
/// reused before the file grows, so they are room.
public struct StoreBudget: Sendable, Hashable {
    /// The budget in bytes, as configured.
    public var bytes: Int64
    /// The page size of the file.
    public var pageSize: Int64
    /// Pages in use at which new notifications are refused.
    public var acceptPages: Int64
    /// The file's most pages (`max_page_count`): the budget and the journal's reserve.
    public var hardPages: Int64

    /// The budget for `bytes` in pages of `pageSize`: the reserve is a twentieth of the budget, at least 64 pages.
    public init(bytes: Int64, pageSize: Int64) {
        self.bytes = bytes
        self.pageSize = max(pageSize, 512)
        acceptPages = max(bytes / self.pageSize, 1)
        hardPages = acceptPages + max(acceptPages / 20, 64)
    }
}

/// The size of the store's file, read in one snapshot.
public struct StoreSize: Sendable, Hashable {
    /// SQLite's page size, in bytes.
    public var pageSize: Int64
    /// Pages in the database (after a checkpoint, the file's size in pages).
    public var pageCount: Int64
    /// Pages on the free list: room reused before the file grows, returned to the file system by an incremental
    /// vacuum (``SQLiteStore/vacuumIncrementally(maximumPages:)``).
    public var freePageCount: Int64

    /// Creates a size.
    public init(pageSize: Int64, pageCount: Int64, freePageCount: Int64) {
        self.pageSize = pageSize
        self.pageCount = pageCount
        self.freePageCount = freePageCount
    }

    /// The database's size: every page, free ones included.
    public var bytes: Int64 { pageCount * pageSize }
    /// The bytes of the pages in use.
    public var usedBytes: Int64 { (pageCount - freePageCount) * pageSize }
}
