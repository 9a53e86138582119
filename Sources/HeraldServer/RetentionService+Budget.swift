import HeraldStore

extension RetentionService {
    /// One pass of the budget's rule: when the pages in use pass ``Configuration/budgetHighWater`` of the budget,
    /// deletes finished notifications oldest first until they are under ``Configuration/budgetLowWater`` (or none
    /// is left), then returns free pages to the file system; how many notifications it deleted. Updates the size
    /// series either way.
    ///
    /// Stored notifications are never deleted: when they alone fill the budget, the gateway answers `503` until
    /// they are delivered or expire (``StoreError/storeFull``).
    @discardableResult
    public func pruneToBudget() async throws -> Int {
        guard let file else { return 0 }
        var size = try await file.size()
        metrics.recordSize(size)
        guard let budget = file.budget else { return 0 }
        let highWater = Int64(Double(budget.acceptPages) * configuration.budgetHighWater)
        let lowWater = Int64(Double(budget.acceptPages) * configuration.budgetLowWater)
        guard size.pageCount - size.freePageCount > highWater else {
            try await returnFreePages()
            return 0
        }
        let deleted = try await pruneFinished(acceptedBefore: .max, rule: .budget) {
            size = try await file.size()
            return size.pageCount - size.freePageCount <= lowWater
        }
        if deleted > 0 {
            logger.info(
                "Pruned finished notifications",
                metadata: ["store.pruned": "\(deleted)", "store.rule": "budget", "store.budget.bytes": "\(budget.bytes)"]
            )
        }
        try await returnFreePages()
        return deleted
    }

    /// Returns the file's free pages to the file system, ``Configuration/vacuumStepPages`` per transaction, when they
    /// are at least a quarter of the file and the file keeps them at its end (``SQLiteStore/returnsFreePages()``);
    /// updates the size series.
    ///
    /// Why not always: fewer free pages are reused by new notifications before the file grows, which costs nothing,
    /// while returning them moves the pages at the end of the file into the holes, writing them again. A large prune (a
    /// shorter retention, a smaller budget, `herald notifications prune` while the server runs) is what leaves many.
    func returnFreePages() async throws {
        guard let file else { return }
        var size = try await file.size()
        if size.freePageCount >= Int64(configuration.vacuumStepPages), size.freePageCount * 4 >= size.pageCount,
            try await file.returnsFreePages()
        {
            var free = size.freePageCount
            while free > 0, !Task.isShuttingDownGracefully {
                let left = try await file.vacuumIncrementally(maximumPages: configuration.vacuumStepPages)
                guard left < free else { break }
                free = left
                await Task.yield()
            }
            size = try await file.size()
        }
        metrics.recordSize(size)
    }
}
