import GRDB

extension SQLiteStore {
    /// The size of the database, read in one snapshot (the WAL's pages included).
    public func size() async throws -> StoreSize {
        try checkOpen()
        return try await read { db in try Self.size(db) }
    }

    static func size(_ db: Database) throws -> StoreSize {
        let row = try Row.fetchOne(db, sql: Self.sizeSQL)
        return StoreSize(pageSize: row?[0] ?? 4096, pageCount: row?[1] ?? 0, freePageCount: row?[2] ?? 0)
    }

    /// Page size, page count and free pages in one statement.
    static let sizeSQL = """
        SELECT (SELECT page_size FROM pragma_page_size()), (SELECT page_count FROM pragma_page_count()),
            (SELECT freelist_count FROM pragma_freelist_count())
        """

    /// Whether the file keeps free pages at its end to give back (`auto_vacuum = INCREMENTAL`): files made by this
    /// version are; older ones are once `herald notifications prune --vacuum` rewrote them.
    public func returnsFreePages() async throws -> Bool {
        try checkOpen()
        return try await read { db in try Int.fetchOne(db, sql: "PRAGMA auto_vacuum") == 2 }
    }

    /// Returns up to `maximumPages` free pages to the file system (`PRAGMA incremental_vacuum`), in one short
    /// write; the number of free pages left. Does nothing in a file without incremental vacuum
    /// (``returnsFreePages()``). Call it in steps so that group commits go on in between.
    @discardableResult
    public func vacuumIncrementally(maximumPages: Int) async throws -> Int64 {
        try checkOpen()
        let pages = max(maximumPages, 1)
        let budget = self.budget
        return try await writeWithoutTransaction { db in
            try db.execute(sql: "PRAGMA incremental_vacuum(\(pages))")
            // The hard limit cannot be set below the file's size: it is set again once the file shrank.
            if let budget { try db.execute(sql: "PRAGMA max_page_count = \(budget.hardPages)") }
            return try Int64.fetchOne(db, sql: "PRAGMA freelist_count") ?? 0
        }
    }

    /// Rewrites the whole file (`VACUUM`), in incremental-vacuum mode from then on; the store waits for it. For the
    /// `herald` CLI: it takes as long as copying the file, and needs as much free disk space again.
    public func vacuum() async throws {
        try checkOpen()
        try await writeWithoutTransaction { db in
            try db.execute(sql: "PRAGMA auto_vacuum = INCREMENTAL")
            try db.execute(sql: "VACUUM")
        }
    }

    /// Runs `updates` on the writer outside a transaction and maps its errors to ``StoreError``.
    func writeWithoutTransaction<T: Sendable>(_ updates: @escaping @Sendable (Database) throws -> T) async throws -> T {
        do {
            return try await pool.writeWithoutTransaction(updates)
        } catch {
            throw Self.storeError(error)
        }
    }

    /// Fails with ``StoreError/storeFull`` when the pages in use have reached the budget. Run by the group commit
    /// inside its transaction, once per batch: `PRAGMA page_count` (about a microsecond), and `PRAGMA freelist_count`
    /// only when the file is at least as large as the budget.
    func checkBudget(_ pageCount: DirectStatement, _ freePageCount: DirectStatement) throws {
        guard let budget else { return }
        let pages = try Self.value(of: pageCount)
        guard pages >= budget.acceptPages else { return }
        if pages - (try Self.value(of: freePageCount)) >= budget.acceptPages {
            throw StoreError.storeFull.with(detail: "the store has reached its budget of \(budget.bytes) bytes")
        }
    }

    private static func value(of pragma: DirectStatement) throws -> Int64 {
        guard try pragma.step() else { return 0 }
        let value = pragma.int64(at: 0) ?? 0
        pragma.reset()
        return value
    }
}
