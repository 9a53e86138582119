import Foundation
import GRDB
import HeraldCore

extension SQLiteStore {
    /// Queues a notification for group commit; see ``NotificationStore/enqueue(_:completion:)``.
    ///
    /// The completion runs on GRDB's writer queue, or at once on the calling thread when the notification
    /// is refused (``StoreError/overloaded``, ``StoreError/shutDown``).
    public func enqueue(_ notification: AcceptedNotification, completion: @escaping @Sendable (Result<Void, StoreError>) -> Void) {
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
            for (pending, result) in zip(batch, results) {
                pending.completion(result)
            }
            scheduleNextBatch()
        }
    }

    /// Commits one batch in one IMMEDIATE transaction and returns each notification's result.
    ///
    /// A notification that breaks a rule of the schema (an unknown token, a bad value) fails alone; an
    /// error of the transaction itself (lock timeout, I/O, disk full) fails the whole batch.
    func commit(_ batch: [PendingNotification], _ db: Database) -> [Result<Void, StoreError>] {
        var results = [Result<Void, StoreError>](repeating: .success(()), count: batch.count)
        do {
            try db.inTransaction(.immediate) {
                let statements = try NotificationStatements(db)
                for (index, pending) in batch.enumerated() {
                    if let error = try insert(pending.notification, statements, db) {
                        results[index] = .failure(error)
                    }
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

    /// Inserts one notification and its `accepted` event; returns the notification's own error, if any.
    ///
    /// Throws only errors that must fail the transaction.
    private func insert(_ notification: AcceptedNotification, _ statements: NotificationStatements, _ db: Database) throws -> StoreError? {
        let arguments = Self.insertArguments(notification)
        do {
            try statements.insertIfNew.run(arguments)
            if db.changesCount == 1 {
                do {
                    try statements.insertTrace.run(Self.acceptedTraceArguments(notification, sequence: db.lastInsertedRowID))
                } catch {
                    // A notification must never be stored without its `accepted` event: fail the transaction.
                    throw Self.storeError(error)
                }
                return nil
            }
            // The `apns-id` is already stored: the rare path, in a savepoint so that a failure leaves the
            // older notification in place.
            var failure: StoreError?
            try db.inSavepoint {
                failure = try replace(notification, arguments, statements, db)
                return failure == nil ? .commit : .rollback
            }
            return failure
        } catch let error as DatabaseError where error.resultCode == .SQLITE_CONSTRAINT {
            if error.extendedResultCode == .SQLITE_CONSTRAINT_FOREIGNKEY {
                return StoreError.unknownDeviceToken.with(detail: notification.token.hex)
            }
            return StoreError.invalidRecord.with(detail: error.message ?? "constraint failed")
        }
    }

    private func replace(
        _ notification: AcceptedNotification,
        _ arguments: StatementArguments,
        _ statements: NotificationStatements,
        _ db: Database
    ) throws -> StoreError? {
        let key = notification.id.key
        let previous = try Row.fetchOne(statements.selectPrevious, arguments: [key])
        try statements.delete.run([key])
        do {
            try statements.insert.run(arguments)
        } catch let error as DatabaseError where error.resultCode == .SQLITE_CONSTRAINT {
            if error.extendedResultCode == .SQLITE_CONSTRAINT_FOREIGNKEY {
                return StoreError.unknownDeviceToken.with(detail: notification.token.hex)
            }
            return StoreError.invalidRecord.with(detail: error.message ?? "constraint failed")
        }
        let sequence = db.lastInsertedRowID
        let previousSequence: Int64? = try previous?.decode(forColumn: "seq")
        let previousState: String? = try previous?.decode(forColumn: "state")
        if let previousSequence {
            // The history of the `apns-id` stays with it: the older row's events move to the new row.
            try statements.moveTrace.run([sequence, previousSequence])
        }
        try statements.insertReplacedTrace.run([
            key, notification.acceptedAtMilliseconds, previousSequence, previousState, sequence,
        ])
        try statements.insertTrace.run(Self.acceptedTraceArguments(notification, sequence: sequence))
        return nil
    }

    private static func insertArguments(_ n: AcceptedNotification) -> StatementArguments {
        [
            n.id.key, n.id.text, n.token.hex, n.topic, n.bundleID, n.environment.rawValue, n.pushType.rawValue,
            n.priority.rawValue, n.expiration, n.collapseID, Data(n.payload), n.acceptedAtMilliseconds,
        ]
    }

    private static func acceptedTraceArguments(_ n: AcceptedNotification, sequence: Int64) -> StatementArguments {
        [sequence, n.id.key, n.acceptedAtMilliseconds, n.token.hex, n.topic]
    }
}

/// The group commit's statements, prepared once per connection and reused by every batch.
private struct NotificationStatements {
    let insertIfNew: Statement
    let insert: Statement
    let selectPrevious: Statement
    let delete: Statement
    let insertTrace: Statement
    let insertReplacedTrace: Statement
    let moveTrace: Statement

    private static let columns = """
        apns_id, apns_id_text, token, topic, bundle_id, environment, push_type, priority, expiration, collapse_id, \
        payload, accepted_at
        """

    init(_ db: Database) throws {
        let insertSQL = "INSERT INTO notification (\(Self.columns)) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)"
        insertIfNew = try db.cachedStatement(sql: insertSQL + " ON CONFLICT (apns_id) DO NOTHING")
        insert = try db.cachedStatement(sql: insertSQL)
        selectPrevious = try db.cachedStatement(sql: "SELECT seq, state FROM notification WHERE apns_id = ?")
        delete = try db.cachedStatement(sql: "DELETE FROM notification WHERE apns_id = ?")
        insertTrace = try db.cachedStatement(
            sql: """
                INSERT INTO trace_event (notification_seq, apns_id, at, kind, detail)
                VALUES (?1, ?2, ?3, 'accepted', json_object('seq', ?1, 'token', ?4, 'topic', ?5))
                """
        )
        insertReplacedTrace = try db.cachedStatement(
            sql: """
                INSERT INTO trace_event (notification_seq, apns_id, at, kind, detail)
                VALUES (?5, ?1, ?2, 'replaced', json_object(
                    'reason', 'duplicate-apns-id', 'previousSeq', ?3, 'previousState', ?4, 'replacedBySeq', ?5))
                """
        )
        moveTrace = try db.cachedStatement(sql: "UPDATE trace_event SET notification_seq = ? WHERE notification_seq = ?")
    }
}

extension Statement {
    /// Executes a reused statement; after a failure, leaves it ready for the next notification.
    ///
    /// Why: GRDB resets a statement before its next execution and throws the previous execution's error
    /// from that reset (GRDB 7.10), which would fail the next, valid, notification of the batch. Binding
    /// the same arguments again resets the statement without executing it.
    fileprivate func run(_ arguments: StatementArguments) throws {
        do {
            try execute(arguments: arguments)
        } catch {
            try? setArguments(arguments)
            throw error
        }
    }
}
