import Foundation
import GRDB
import HeraldCore

extension SQLiteStore {
    /// Queues a notification for group commit; see ``NotificationStore/enqueue(_:completion:)``.
    ///
    /// The completion runs on GRDB's writer queue, or at once on the calling thread when the notification
    /// is refused (``StoreError/overloaded``, ``StoreError/shutDown``).
    public func enqueue(_ notification: AcceptedNotification, completion: @escaping @Sendable (Result<Int64, StoreError>) -> Void) {
        let pending = PendingNotification(notification: notification, completion: completion)
        switch commitState.withLock({ $0.enqueue(pending) }) {
        case .startWriter:
            scheduleNextBatch()
        case .queued:
            break
        case .rejected(let error):
            completion(.failure(error))
        }
    }

    /// Runs `body` on the database's writer queue, ahead of every write queued after this call.
    ///
    /// For tests that need a commit to stay in flight: a `body` that waits holds every write behind it.
    package func runOnWriterQueue(_ body: @escaping @Sendable () -> Void) {
        pool.asyncWriteWithoutTransaction { _ in body() }
    }

    /// Runs the next batch on the database's writer queue.
    ///
    /// Each batch is its own job on that serial queue, so token and key writes interleave with group
    /// commit instead of waiting for a busy queue to empty.
    private func scheduleNextBatch() {
        pool.asyncWriteWithoutTransaction { db in
            self.writeNextBatch(db)
        }
    }

    private func writeNextBatch(_ db: Database) {
        switch commitState.withLock({ $0.nextBatch() }) {
        case .stop:
            return
        case .stopAndFinishShutdown(let waiters):
            for waiter in waiters { waiter.resume() }
        case .commit(let batch):
            let results = commit(batch, db)
            commitStatistics.withLock { $0.record(batchSize: batch.count) }
            // By index: a `for … in` over the batch would copy each element (a retain per field).
            for index in batch.indices {
                batch[index].completion(results[index])
            }
            scheduleNextBatch()
        }
    }

    /// Commits one batch in one IMMEDIATE transaction and returns each notification's result: its sequence number.
    ///
    /// A notification that breaks a rule of the schema (an unknown token, a bad value) fails alone; an
    /// error of the transaction itself (lock timeout, I/O, disk full, the disk budget reached) fails the whole batch.
    func commit(_ batch: [PendingNotification], _ db: Database) -> [Result<Int64, StoreError>] {
        var results: [Result<Int64, StoreError>] = []
        results.reserveCapacity(batch.count)
        do {
            try db.inTransaction(.immediate) {
                let statements = try NotificationStatements(db)
                try checkBudget(statements.pageCount, statements.freePageCount)
                for index in batch.indices {
                    results.append(try insert(batch[index].notification, statements, db))
                }
                return .commit
            }
        } catch {
            let failure = Self.storeError(error)
            logger.info(
                "Group commit failed",
                metadata: ["store.batch.size": "\(batch.count)", "store.error": "\(failure)"]
            )
            return [Result](repeating: .failure(failure), count: batch.count)
        }
        return results
    }

    /// Inserts one notification, its trace holding its `accepted` event; returns its sequence number or its own error.
    ///
    /// Throws only errors that must fail the transaction.
    private func insert(
        _ notification: AcceptedNotification,
        _ statements: NotificationStatements,
        _ db: Database
    ) throws -> Result<Int64, StoreError> {
        let key = Self.keyBytes(notification.id)
        do {
            statements.insertIfNew.bind(notification, key: key)
            try statements.insertIfNew.run()
            if db.changesCount == 1 {
                return .success(db.lastInsertedRowID)
            }
            // The `apns-id` is already stored: the rare path, in a savepoint so that a failure leaves the
            // older notification in place.
            // Set by the savepoint's body, which always runs.
            var result: Result<Int64, StoreError> = .failure(.invalidRecord)
            try db.inSavepoint {
                result = try replace(notification, key: key, statements, db)
                if case .success = result { return .commit }
                return .rollback
            }
            return result
        } catch let error as DatabaseError where error.resultCode == .SQLITE_CONSTRAINT {
            return .failure(Self.constraintFailure(error, notification))
        }
    }

    /// Replaces the row holding the `apns-id` with the new notification; the older row's trace moves to the new
    /// row, followed by a `replaced` event (reason `duplicate-apns-id`) and the new `accepted` event.
    private func replace(
        _ notification: AcceptedNotification,
        key: [UInt8],
        _ statements: NotificationStatements,
        _ db: Database
    ) throws -> Result<Int64, StoreError> {
        let select = statements.selectPrevious
        select.bind(blob: key, at: 1)
        var previous: (sequence: Int64, state: String, history: [TraceText.Line])?
        if try select.step(), let sequence = select.int64(at: 0), let state = select.text(at: 1) {
            let trace = select.text(at: 2) ?? ""
            let history = TraceText.materialized(
                trace,
                acceptedAt: select.int64(at: 5) ?? 0,
                device: select.text(at: 6),
                sequence: sequence,
                token: select.text(at: 3) ?? "",
                topic: select.text(at: 4) ?? ""
            )
            select.reset()
            guard let history else { throw StoreError.corruptRecord.with(detail: "trace of notification \(sequence)") }
            previous = (sequence, state, history)
        }
        statements.delete.bind(blob: key, at: 1)
        try statements.delete.run()
        do {
            statements.insert.bind(notification, key: key)
            try statements.insert.run()
        } catch let error as DatabaseError where error.resultCode == .SQLITE_CONSTRAINT {
            return .failure(Self.constraintFailure(error, notification))
        }
        let sequence = db.lastInsertedRowID
        var detail = #"{"reason":"duplicate-apns-id","previousSeq":"#
        detail += previous.map { String($0.sequence) } ?? "null"
        detail += #","previousState":"#
        detail += previous.map { "\"" + $0.state + "\"" } ?? "null"
        detail += #","replacedBySeq":"# + String(sequence) + "}"
        let acceptedAt = notification.acceptedAtMilliseconds
        // The history of the `apns-id` stays with it, then the replacement and the new acceptance.
        let lines =
            (previous?.history ?? []) + [
                TraceText.Line(atMilliseconds: acceptedAt, kind: TraceEventKind.replaced.rawValue, detail: detail),
                TraceText.Line(atMilliseconds: acceptedAt, kind: TraceEventKind.accepted.rawValue, detail: nil),
            ]
        // Without the device's byte: the rare path, and the new row's token may belong to another device.
        statements.setTrace.bind(TraceText.encode(lines, acceptedAt: acceptedAt, device: nil), at: 1)
        statements.setTrace.bind(sequence, at: 2)
        try statements.setTrace.run()
        return .success(sequence)
    }

    /// The error of a notification that breaks a rule of the schema.
    private static func constraintFailure(_ error: DatabaseError, _ notification: AcceptedNotification) -> StoreError {
        // A token without a number in `token_ref` is not registered (schema v10); the foreign key stays as a guard.
        if error.extendedResultCode == .SQLITE_CONSTRAINT_FOREIGNKEY
            || (error.extendedResultCode == .SQLITE_CONSTRAINT_NOTNULL && error.message?.contains("token_ref") == true)
        {
            return StoreError.unknownDeviceToken.with(detail: notification.token.hex)
        }
        return StoreError.invalidRecord.with(detail: error.message ?? "constraint failed")
    }
}

/// The group commit's statements, prepared once per connection and reused by every batch.
private struct NotificationStatements {
    let insertIfNew: DirectStatement
    let insert: DirectStatement
    let selectPrevious: DirectStatement
    let delete: DirectStatement
    let setTrace: DirectStatement
    /// The budget's check: the file's pages, and its free pages.
    let pageCount: DirectStatement
    let freePageCount: DirectStatement

    private static let columns = """
        apns_id, apns_id_text, token_ref, topic, bundle_id, environment, push_type, priority, expiration, collapse_id, \
        payload, accepted_at, trace
        """

    init(_ db: Database) throws {
        // The token's number and what it says (schema v10): the topic, bundle id and environment are NULL when they are
        // the token's. A token never registered has no number, which the NOT NULL constraint refuses. The one-row
        // `pushed` keeps the row when the token is unknown; `WHERE true` is SQLite's rule for an upsert over a SELECT.
        let insertSQL = """
            INSERT INTO notification (\(Self.columns))
            SELECT ?1, ?2, t.ref, nullif(?4, t.bundle_id), nullif(?5, t.bundle_id), nullif(?6, t.environment), ?7, ?8, ?9,
                ?10, ?11, ?12, ?13
            FROM (SELECT ?3 AS token) AS pushed LEFT JOIN token_ref AS t ON t.token = pushed.token WHERE true
            """
        insertIfNew = try DirectStatement(db, sql: insertSQL + " ON CONFLICT (apns_id) DO NOTHING")
        insert = try DirectStatement(db, sql: insertSQL)
        selectPrevious = try DirectStatement(
            db,
            sql: """
                SELECT n.seq, n.state, n.trace, t.token, coalesce(n.topic, t.bundle_id), n.accepted_at, t.device_id
                FROM notification AS n CROSS JOIN token_ref AS t ON t.ref = n.token_ref WHERE n.apns_id = ?
                """
        )
        delete = try DirectStatement(db, sql: "DELETE FROM notification WHERE apns_id = ?")
        setTrace = try DirectStatement(db, sql: "UPDATE notification SET trace = ? WHERE seq = ?")
        pageCount = try DirectStatement(db, sql: "PRAGMA page_count")
        freePageCount = try DirectStatement(db, sql: "PRAGMA freelist_count")
    }
}

extension DirectStatement {
    /// Binds the thirteen columns of ``NotificationStatements``' notification inserts (the trace: its `accepted` line).
    fileprivate func bind(_ n: AcceptedNotification, key: [UInt8]) {
        bind(blob: key, at: 1)
        bind(SQLiteStore.storedIDText(n.id.text, key: n.id.key), at: 2)
        bind(n.token.hex, at: 3)
        bind(n.topic, at: 4)
        bind(n.bundleID, at: 5)
        bind(n.environment.rawValue, at: 6)
        bind(n.pushType.rawValue, at: 7)
        bind(Int64(n.priority.rawValue), at: 8)
        bind(n.expiration, at: 9)
        bind(n.collapseID, at: 10)
        bind(blob: n.payload, at: 11)
        bind(n.acceptedAtMilliseconds, at: 12)
        bind(TraceText.acceptedLine, at: 13)
    }
}
