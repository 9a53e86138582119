import Foundation
import GRDB
import HeraldCore

/// The SQLite schema, as named migrations.
///
/// Rules (GRDB's, kept here): a migration that has shipped is frozen — never edit it, add `v2`;
/// invariants live in the schema (NOT NULL, UNIQUE, CHECK, foreign keys) so that every writer, the
/// server and the `herald` CLI alike, keeps them; every column's unit is in its name or its comment.
enum SQLiteSchema {
    /// The migrator with every migration this version of Herald knows, in order.
    static var migrator: DatabaseMigrator {
        var migrator = DatabaseMigrator()
        migrator.registerMigration("v1") { db in
            for statement in v1 {
                try db.execute(sql: statement)
            }
        }
        migrator.registerMigration("v2") { db in
            for statement in v2 {
                try db.execute(sql: statement)
            }
        }
        migrator.registerMigration("v3") { db in
            for statement in v3 {
                try db.execute(sql: statement)
            }
        }
        migrator.registerMigration("v4") { db in
            try migrateToVersion4(db)
        }
        migrator.registerMigration("v5") { db in
            for statement in v5 {
                try db.execute(sql: statement)
            }
        }
        migrator.registerMigration("v6") { db in
            for statement in v6 {
                try db.execute(sql: statement)
            }
        }
        migrator.registerMigration("v7") { db in
            for statement in v7 {
                try db.execute(sql: statement)
            }
        }
        migrator.registerMigration("v8") { db in
            for statement in v8 {
                try db.execute(sql: statement)
            }
        }
        migrator.registerMigration("v9") { db in
            for statement in v9 {
                try db.execute(sql: statement)
            }
        }
        migrator.registerMigration("v10") { db in
            try migrateToVersion10(db)
        }
        migrator.registerMigration("v11") { db in
            try migrateToVersion11(db)
        }
        return migrator
    }

    /// v1: signing keys, device tokens, notifications and their traces, and the registry revision.
    private static let v1: [String] = [
        // A counter that moves on every change to `device_token` or `signing_key`, by any process.
        // Caches poll it: `PRAGMA data_version` would also move on every notification commit (it is per
        // connection and counts every other connection's writes), which would empty the caches constantly.
        """
        CREATE TABLE registry_revision (
            id INTEGER PRIMARY KEY CHECK (id = 1),
            value INTEGER NOT NULL CHECK (value >= 0)
        ) STRICT
        """,
        "INSERT INTO registry_revision (id, value) VALUES (1, 0)",

        """
        CREATE TABLE signing_key (
            key_id TEXT PRIMARY KEY NOT NULL
                CHECK (length(key_id) BETWEEN 1 AND 64 AND key_id NOT GLOB '*[^A-Za-z0-9._-]*'),
            team_id TEXT NOT NULL
                CHECK (length(team_id) BETWEEN 1 AND 64 AND team_id NOT GLOB '*[^A-Za-z0-9._-]*'),
            environment TEXT NOT NULL CHECK (environment IN ('sandbox', 'production', 'both')),
            topics TEXT CHECK (topics IS NULL OR (json_valid(topics) AND json_type(topics) = 'array')),
            public_key_pem TEXT NOT NULL CHECK (public_key_pem LIKE '-----BEGIN PUBLIC KEY-----%'),
            created_at INTEGER NOT NULL
        ) STRICT, WITHOUT ROWID
        """,
        """
        CREATE TRIGGER signing_key_inserted AFTER INSERT ON signing_key
        BEGIN UPDATE registry_revision SET value = value + 1 WHERE id = 1; END
        """,
        """
        CREATE TRIGGER signing_key_updated AFTER UPDATE ON signing_key
        BEGIN UPDATE registry_revision SET value = value + 1 WHERE id = 1; END
        """,
        """
        CREATE TRIGGER signing_key_deleted AFTER DELETE ON signing_key
        BEGIN UPDATE registry_revision SET value = value + 1 WHERE id = 1; END
        """,

        // `revision` is the registry revision of the row's last change, set by the triggers below, so a
        // cache can fetch just what changed since the revision it last saw.
        """
        CREATE TABLE device_token (
            token TEXT PRIMARY KEY NOT NULL
                CHECK (length(token) BETWEEN 16 AND 200 AND length(token) % 2 = 0 AND token NOT GLOB '*[^0-9a-f]*'),
            bundle_id TEXT NOT NULL CHECK (length(bundle_id) BETWEEN 1 AND 255),
            environment TEXT NOT NULL CHECK (environment IN ('sandbox', 'production')),
            device_id TEXT CHECK (device_id IS NULL OR length(device_id) BETWEEN 1 AND 255),
            registered_at INTEGER NOT NULL,
            unregistered_at INTEGER CHECK (unregistered_at IS NULL OR unregistered_at >= registered_at),
            revision INTEGER NOT NULL DEFAULT 0
        ) STRICT, WITHOUT ROWID
        """,
        "CREATE INDEX device_token_by_revision ON device_token (revision)",
        "CREATE INDEX device_token_by_device ON device_token (device_id) WHERE device_id IS NOT NULL",
        """
        CREATE TRIGGER device_token_inserted AFTER INSERT ON device_token
        BEGIN
            UPDATE registry_revision SET value = value + 1 WHERE id = 1;
            UPDATE device_token SET revision = (SELECT value FROM registry_revision WHERE id = 1) WHERE token = NEW.token;
        END
        """,
        """
        CREATE TRIGGER device_token_updated AFTER UPDATE ON device_token WHEN NEW.revision = OLD.revision
        BEGIN
            UPDATE registry_revision SET value = value + 1 WHERE id = 1;
            UPDATE device_token SET revision = (SELECT value FROM registry_revision WHERE id = 1) WHERE token = NEW.token;
        END
        """,
        // Why never deleted: APNs keeps answering `410 Unregistered` with the time the token stopped
        // being valid (spec §A.4), so an unregistered token is a fact the gateway must remember.
        """
        CREATE TRIGGER device_token_never_deleted BEFORE DELETE ON device_token
        BEGIN SELECT RAISE(ABORT, 'device tokens are unregistered, never deleted'); END
        """,

        // `seq` orders notifications (AUTOINCREMENT: never reused, even after deletions), `apns_id` is
        // the lowercase key of the `apns-id`, `apns_id_text` the form the provider sent.
        """
        CREATE TABLE notification (
            seq INTEGER PRIMARY KEY AUTOINCREMENT,
            apns_id TEXT NOT NULL UNIQUE
                CHECK (length(apns_id) = 36 AND apns_id GLOB '[0-9a-f-]*' AND apns_id NOT GLOB '*[^0-9a-f-]*'),
            apns_id_text TEXT NOT NULL CHECK (lower(apns_id_text) = apns_id),
            token TEXT NOT NULL REFERENCES device_token (token),
            topic TEXT NOT NULL CHECK (length(topic) BETWEEN 1 AND 255),
            bundle_id TEXT NOT NULL CHECK (length(bundle_id) BETWEEN 1 AND 255),
            environment TEXT NOT NULL CHECK (environment IN ('sandbox', 'production')),
            push_type TEXT NOT NULL CHECK (length(push_type) BETWEEN 1 AND 64),
            priority INTEGER NOT NULL CHECK (priority IN (1, 5, 10)),
            expiration INTEGER CHECK (expiration IS NULL OR expiration >= 0),
            collapse_id TEXT CHECK (collapse_id IS NULL OR length(CAST(collapse_id AS BLOB)) <= 64),
            payload BLOB NOT NULL CHECK (length(payload) BETWEEN 1 AND 5120),
            accepted_at INTEGER NOT NULL,
            state TEXT NOT NULL DEFAULT 'stored'
                CHECK (state IN ('stored', 'delivered', 'expired', 'replaced', 'discarded'))
        ) STRICT
        """,
        "CREATE INDEX notification_by_token ON notification (token, seq)",
        "CREATE INDEX notification_by_state ON notification (state, seq)",

        // A trace event may outlive the row it was written for (an `apns-id` reused by the provider
        // replaces the row; the history stays), hence the deferred foreign key.
        """
        CREATE TABLE trace_event (
            id INTEGER PRIMARY KEY AUTOINCREMENT,
            apns_id TEXT NOT NULL REFERENCES notification (apns_id) DEFERRABLE INITIALLY DEFERRED,
            at INTEGER NOT NULL,
            kind TEXT NOT NULL CHECK (length(kind) BETWEEN 1 AND 64 AND kind NOT GLOB '*[^a-z-]*'),
            detail TEXT CHECK (detail IS NULL OR (json_valid(detail) AND json_type(detail) = 'object'))
        ) STRICT
        """,
        "CREATE INDEX trace_event_by_notification ON trace_event (apns_id, id)",
    ]

    /// v2: devices (the identities device-link connections authenticate as) and one active token per app
    /// on a device.
    ///
    /// The notification indexes the delivery queries need (`notification_by_state` for the pending list,
    /// `notification_by_token` for a device's notifications) and `device_token_by_device` are in v1.
    private static let v2: [String] = [
        // `id` is a lowercase UUID made by the store; `secret_sha256` the SHA-256 of the secret, in lowercase
        // hex: the secret itself is shown once and never stored. A rowid table, so that devices added in
        // the same millisecond still list in the order they were added.
        """
        CREATE TABLE device (
            id TEXT PRIMARY KEY NOT NULL
                CHECK (length(id) = 36 AND id NOT GLOB '*[^0-9a-f-]*' AND length(replace(id, '-', '')) = 32
                    AND substr(id, 9, 1) || substr(id, 14, 1) || substr(id, 19, 1) || substr(id, 24, 1) = '----'),
            name TEXT NOT NULL CHECK (length(name) BETWEEN 1 AND 255),
            secret_sha256 TEXT NOT NULL CHECK (length(secret_sha256) = 64 AND secret_sha256 NOT GLOB '*[^0-9a-f]*'),
            created_at INTEGER NOT NULL
        ) STRICT
        """,
        // Devices list oldest first (`ORDER BY created_at, rowid`); the index holds the rowid, so no sort.
        "CREATE INDEX device_by_creation ON device (created_at)",

        // A v1 file may hold several active tokens for one device and app (v1 did not forbid it): all but
        // the newest are unregistered, at the newest one's registration time, so that the index below can
        // be built. The triggers of v1 move the registry revision, so running servers' caches see it.
        """
        UPDATE device_token AS older
        SET unregistered_at = max(older.registered_at, (
            SELECT max(newer.registered_at) FROM device_token AS newer
            WHERE newer.device_id = older.device_id AND newer.bundle_id = older.bundle_id
                AND newer.environment = older.environment AND newer.unregistered_at IS NULL))
        WHERE older.device_id IS NOT NULL AND older.unregistered_at IS NULL AND EXISTS (
            SELECT 1 FROM device_token AS newer
            WHERE newer.device_id = older.device_id AND newer.bundle_id = older.bundle_id
                AND newer.environment = older.environment AND newer.unregistered_at IS NULL
                AND (newer.registered_at > older.registered_at
                    OR (newer.registered_at = older.registered_at AND newer.token > older.token)))
        """,
        // Why: an app on a device has one current token (spec §A.9); a new one is issued only after the old
        // one is unregistered. The index also serves the lookup of that token.
        """
        CREATE UNIQUE INDEX device_token_active_per_app ON device_token (device_id, bundle_id, environment)
        WHERE unregistered_at IS NULL AND device_id IS NOT NULL
        """,
    ]

    /// v3: trace events keyed by their notification's sequence number, not by its `apns-id`.
    ///
    /// Why: an `apns-id` is a random UUID, so an index on it puts every new trace event on a random page: a group
    /// commit of n events dirtied about n index pages, each written to the WAL (the writer's main cost in the gateway
    /// benchmark; bench/gateway/results-2026-11-23.md). The sequence number grows, so the new index only appends. The
    /// `apns_id` column stays, for display, unindexed; the foreign key goes with it (a parent delete would have to
    /// scan the table). Instead the store deletes a notification's events with it (retention) and moves them to the
    /// new row when a reused `apns-id` replaces it, so every event still belongs to the row of its `apns-id`.
    private static let v3: [String] = [
        """
        CREATE TABLE trace_event_v3 (
            id INTEGER PRIMARY KEY AUTOINCREMENT,
            notification_seq INTEGER NOT NULL,
            apns_id TEXT NOT NULL,
            at INTEGER NOT NULL,
            kind TEXT NOT NULL CHECK (length(kind) BETWEEN 1 AND 64 AND kind NOT GLOB '*[^a-z-]*'),
            detail TEXT CHECK (detail IS NULL OR (json_valid(detail) AND json_type(detail) = 'object'))
        ) STRICT
        """,
        """
        INSERT INTO trace_event_v3 (id, notification_seq, apns_id, at, kind, detail)
        SELECT trace.id, notification.seq, trace.apns_id, trace.at, trace.kind, trace.detail
        FROM trace_event AS trace JOIN notification ON notification.apns_id = trace.apns_id
        """,
        "DROP TABLE trace_event",
        "ALTER TABLE trace_event_v3 RENAME TO trace_event",
        "CREATE INDEX trace_event_by_notification_seq ON trace_event (notification_seq, id)",
    ]

    /// v4: a notification's trace is a column of its row (``TraceText``), not rows of `trace_event`; the index of
    /// `stored` notifications is partial.
    ///
    /// Why: each event row cost as much to write as the notification itself (a table row, an index entry, the
    /// AUTOINCREMENT counter, the JSON check), and the gateway benchmark wrote four per notification; appending to
    /// the row the journal updates anyway costs a fraction (docs/performance.md). `notification_by_state` indexed
    /// every row by state, so each state change moved an index entry; the delivery engine only ever asks for the
    /// `stored` ones.
    ///
    /// The `trace` column holds lines `{"at":…,"kind":…[,"detail":…]}` followed by a line feed; the CHECK keeps the
    /// two ends of that form (the store writes whole lines; `json()` has checked each detail).
    private static func migrateToVersion4(_ db: Database) throws {
        try db.execute(
            sql: """
                ALTER TABLE notification ADD COLUMN trace TEXT NOT NULL DEFAULT ''
                    CHECK (trace = '' OR (substr(trace, 1, 6) = '{"at":' AND substr(trace, -1) = char(10)))
                """
        )
        // Each notification's events, oldest first, become its lines (details minified by `json()`).
        let events = try Row.fetchCursor(
            db,
            sql: """
                SELECT event.notification_seq AS seq, event.at, event.kind, json(event.detail) AS detail
                FROM trace_event AS event JOIN notification ON notification.seq = event.notification_seq
                ORDER BY event.notification_seq, event.id
                """
        )
        var current: Int64?
        var text = ""
        let update = try db.makeStatement(sql: "UPDATE notification SET trace = ? WHERE seq = ?")
        while let row = try events.next() {
            let sequence: Int64 = row["seq"]
            if sequence != current, let previous = current {
                try update.execute(arguments: [text, previous])
                text = ""
            }
            current = sequence
            text += TraceText.version4Line(TraceText.Line(atMilliseconds: row["at"], kind: row["kind"], detail: row["detail"]))
        }
        if let current {
            try update.execute(arguments: [text, current])
        }
        try db.execute(sql: "DROP TABLE trace_event")
        try db.execute(sql: "DROP INDEX notification_by_state")
        try db.execute(sql: "CREATE INDEX notification_stored ON notification (seq) WHERE state = 'stored'")
    }

    /// v5: apps and the team each belongs to (docs/provider-api.md, "Apps and teams"). Changes move the registry
    /// revision, so running servers' caches see `herald apps add` within their refresh interval.
    private static let v5: [String] = [
        """
        CREATE TABLE app (
            bundle_id TEXT PRIMARY KEY NOT NULL
                CHECK (length(bundle_id) BETWEEN 1 AND 255 AND bundle_id NOT GLOB '*[^A-Za-z0-9._-]*'),
            team_id TEXT NOT NULL
                CHECK (length(team_id) BETWEEN 1 AND 64 AND team_id NOT GLOB '*[^A-Za-z0-9._-]*'),
            created_at INTEGER NOT NULL
        ) STRICT, WITHOUT ROWID
        """,
        """
        CREATE TRIGGER app_inserted AFTER INSERT ON app
        BEGIN UPDATE registry_revision SET value = value + 1 WHERE id = 1; END
        """,
        """
        CREATE TRIGGER app_updated AFTER UPDATE ON app
        BEGIN UPDATE registry_revision SET value = value + 1 WHERE id = 1; END
        """,
        """
        CREATE TRIGGER app_deleted AFTER DELETE ON app
        BEGIN UPDATE registry_revision SET value = value + 1 WHERE id = 1; END
        """,
    ]

    /// v6: broadcast channels (docs/broadcast.md), per app and environment.
    private static let v6: [String] = [
        """
        CREATE TABLE channel (
            id TEXT PRIMARY KEY NOT NULL CHECK (length(id) BETWEEN 1 AND 64),
            bundle_id TEXT NOT NULL CHECK (length(bundle_id) BETWEEN 1 AND 255),
            environment TEXT NOT NULL CHECK (environment IN ('sandbox', 'production')),
            storage_policy INTEGER NOT NULL CHECK (storage_policy IN (0, 1)),
            push_type TEXT NOT NULL CHECK (length(push_type) BETWEEN 1 AND 64),
            created_at INTEGER NOT NULL
        ) STRICT, WITHOUT ROWID
        """,
        "CREATE INDEX channel_by_app ON channel (bundle_id, environment)",
    ]

    /// v7: Live Activity tokens (docs/live-activities.md, "Tokens") in the token registry, with their kind.
    ///
    /// Why in `device_token` and not a table of their own: a push to any token is looked up, routed, stored
    /// (`notification.token` references the row) and answered `410 Unregistered` the same way, and the registry
    /// cache follows the same revision. Rows of v6 are `device` tokens. An app keeps one active device token per
    /// device (the index is rebuilt for that kind only: a device holds many activity tokens of one app), and one
    /// active push-to-start token per activity type.
    private static let v7: [String] = [
        """
        ALTER TABLE device_token ADD COLUMN kind TEXT NOT NULL DEFAULT 'device'
            CHECK (kind IN ('device', 'activity', 'push-to-start'))
        """,
        """
        ALTER TABLE device_token ADD COLUMN activity_type TEXT
            CHECK (activity_type IS NULL OR length(activity_type) BETWEEN 1 AND 255)
        """,
        "DROP INDEX device_token_active_per_app",
        """
        CREATE UNIQUE INDEX device_token_active_per_app ON device_token (device_id, bundle_id, environment)
        WHERE unregistered_at IS NULL AND device_id IS NOT NULL AND kind = 'device'
        """,
        """
        CREATE UNIQUE INDEX device_token_active_push_to_start ON device_token (device_id, bundle_id, environment, activity_type)
        WHERE unregistered_at IS NULL AND device_id IS NOT NULL AND kind = 'push-to-start'
        """,
    ]

    /// v8: the broadcast a channel with storage policy 1 keeps for devices that subscribe later (docs/broadcast.md,
    /// "Delivery"): one row per channel, replaced by each broadcast, gone with its channel.
    private static let v8: [String] = [
        """
        CREATE TABLE channel_message (
            channel_id TEXT PRIMARY KEY NOT NULL REFERENCES channel (id) ON DELETE CASCADE,
            request_id TEXT NOT NULL CHECK (length(request_id) BETWEEN 1 AND 64),
            priority INTEGER NOT NULL,
            -- apns-expiration, seconds since the epoch
            expiration INTEGER NOT NULL,
            -- milliseconds since the epoch
            accepted_at INTEGER NOT NULL,
            -- milliseconds since the epoch: the row is dead after it
            keep_until INTEGER NOT NULL,
            payload BLOB NOT NULL CHECK (length(payload) <= 5120)
        ) STRICT, WITHOUT ROWID
        """
    ]

    /// v9: a device's notifications are found by token within windows of 1024 sequence numbers
    /// (``SQLiteStore/tokenWindowShift``), not by token alone.
    ///
    /// Why: `notification_by_token (token, seq)` put each new notification at a random place in the index (tokens are
    /// random), so every notification of a group commit dirtied its own page of it, and each such page went to the WAL
    /// whole (4 KiB) and was copied again at the checkpoint. Keyed by the window first, every new entry lands in the
    /// newest window's few pages. Without the index the delivery benchmark's capacity rose 15 % (5.5k → 6.4k/s,
    /// bench/delivery/profile-2026-11-27.md). A device's list now reads the windows newest first until it has enough:
    /// one index seek per window.
    private static let v9: [String] = [
        "DROP INDEX notification_by_token",
        "CREATE INDEX notification_by_token_window ON notification (seq >> 10, token)",
    ]

    /// v11: web push subscriptions in the token registry (kind `web-push`, docs/web-push.md): the token is the
    /// subscription's id, `bundle_id` the web app's origin, `activity_type` its `applicationServerKey`; one active
    /// subscription per device, origin and key. A notification's payload may be up to 8192 bytes: a web push message's
    /// envelope carries its body (at most 4096 bytes) in base64url.
    ///
    /// Why the schema's text is edited: SQLite cannot alter a CHECK constraint, and both changes only widen what the
    /// CHECKs accept (every row that passed still passes), which is the case SQLite documents as safe to make in
    /// `sqlite_schema` directly ("Making Other Kinds Of Table Schema Changes", www.sqlite.org/lang_altertable.html),
    /// where rebuilding `device_token` would mean rebuilding its triggers and every table that references it.
    private static func migrateToVersion11(_ db: Database) throws {
        let version = try Int.fetchOne(db, sql: "PRAGMA schema_version") ?? 0
        try db.execute(sql: "PRAGMA writable_schema = ON")
        try db.execute(
            sql: "UPDATE sqlite_schema SET sql = replace(sql, ?, ?) WHERE type = 'table' AND name = 'device_token'",
            arguments: ["'push-to-start'))", "'push-to-start', 'web-push'))"]
        )
        try db.execute(
            sql: "UPDATE sqlite_schema SET sql = replace(sql, ?, ?) WHERE type = 'table' AND name = 'notification'",
            arguments: ["CHECK (length(payload) BETWEEN 1 AND 5120)", "CHECK (length(payload) BETWEEN 1 AND 8192)"]
        )
        try db.execute(sql: "PRAGMA schema_version = \(version + 1)")
        try db.execute(sql: "PRAGMA writable_schema = OFF")
        try db.execute(
            sql: """
                CREATE UNIQUE INDEX device_token_active_web_push ON device_token (device_id, bundle_id, environment, activity_type)
                WHERE unregistered_at IS NULL AND device_id IS NOT NULL AND kind = 'web-push'
                """
        )
    }

    /// v10: a smaller notification row (issue 21: bytes on disk per notification; bench/storage).
    ///
    /// - `apns_id` is the identifier's 16 bytes (was its 36-byte text, in the row and in its UNIQUE index);
    ///   `apns_id_text` keeps the provider's form only when it is not the lowercase text of the key: `NULL` for that,
    ///   `'U'` for the uppercase text, else the text as sent.
    /// - `token_ref` is the token's number in `token_ref` (a new table, one row per token ever registered, filled by a
    ///   trigger on `device_token`, with the token's app, environment and device, which never change), 1 to 3 bytes
    ///   where the token's hex text took 64, in the row and in `notification_by_token_window`. A push to an unknown
    ///   token finds no number: the NOT NULL constraint refuses it as the foreign key did.
    /// - `topic`, `bundle_id` and `environment` are `NULL` when they are the token's app and environment (nearly
    ///   always: a topic other than the bundle id is a VoIP, complication or Live Activity topic).
    /// - `trace` is in the compact form of ``TraceText`` (times after acceptance, one-letter kinds, a dictionary of
    ///   common substrings, the token's device id as one byte, a repeated detail as one byte).
    ///
    /// The table is rebuilt; the AUTOINCREMENT counter is carried over, so no sequence number is ever used twice.
    private static func migrateToVersion10(_ db: Database) throws {
        try db.execute(
            sql: """
                CREATE TABLE token_ref (
                    ref INTEGER PRIMARY KEY,
                    token TEXT NOT NULL UNIQUE REFERENCES device_token (token),
                    bundle_id TEXT NOT NULL,
                    environment TEXT NOT NULL,
                    device_id TEXT
                ) STRICT
                """
        )
        try db.execute(
            sql: """
                INSERT INTO token_ref (token, bundle_id, environment, device_id)
                SELECT token, bundle_id, environment, device_id FROM device_token ORDER BY registered_at, token
                """
        )
        // OR IGNORE: an upsert that replaced a row would insert its token again.
        try db.execute(
            sql: """
                CREATE TRIGGER device_token_numbered AFTER INSERT ON device_token
                BEGIN
                    INSERT OR IGNORE INTO token_ref (token, bundle_id, environment, device_id)
                    VALUES (NEW.token, NEW.bundle_id, NEW.environment, NEW.device_id);
                END
                """
        )
        // What `token_ref` copies never changes (a token is issued to one app on one device, in one environment).
        try db.execute(
            sql: """
                CREATE TRIGGER device_token_route_fixed BEFORE UPDATE OF token, bundle_id, environment, device_id ON device_token
                WHEN NEW.token IS NOT OLD.token OR NEW.bundle_id IS NOT OLD.bundle_id
                    OR NEW.environment IS NOT OLD.environment OR NEW.device_id IS NOT OLD.device_id
                BEGIN SELECT RAISE(ABORT, 'a device token''s app, environment and device never change'); END
                """
        )
        try db.execute(
            sql: """
                CREATE TABLE notification_v10 (
                    seq INTEGER PRIMARY KEY AUTOINCREMENT,
                    apns_id BLOB NOT NULL UNIQUE CHECK (length(apns_id) = 16),
                    apns_id_text TEXT CHECK (apns_id_text IS NULL OR apns_id_text = 'U' OR length(apns_id_text) = 36),
                    token_ref INTEGER NOT NULL REFERENCES token_ref (ref),
                    topic TEXT CHECK (topic IS NULL OR length(topic) BETWEEN 1 AND 255),
                    bundle_id TEXT CHECK (bundle_id IS NULL OR length(bundle_id) BETWEEN 1 AND 255),
                    environment TEXT CHECK (environment IS NULL OR environment IN ('sandbox', 'production')),
                    push_type TEXT NOT NULL CHECK (length(push_type) BETWEEN 1 AND 64),
                    priority INTEGER NOT NULL CHECK (priority IN (1, 5, 10)),
                    expiration INTEGER CHECK (expiration IS NULL OR expiration >= 0),
                    collapse_id TEXT CHECK (collapse_id IS NULL OR length(CAST(collapse_id AS BLOB)) <= 64),
                    payload BLOB NOT NULL CHECK (length(payload) BETWEEN 1 AND 5120),
                    accepted_at INTEGER NOT NULL,
                    state TEXT NOT NULL DEFAULT 'stored'
                        CHECK (state IN ('stored', 'delivered', 'expired', 'replaced', 'discarded')),
                    trace TEXT NOT NULL DEFAULT '' CHECK (trace = '' OR substr(trace, -1) = char(10))
                ) STRICT
                """
        )
        let rows = try Row.fetchCursor(
            db,
            sql: """
                SELECT n.seq, n.apns_id, n.apns_id_text, n.topic, n.bundle_id, n.environment, n.push_type, n.priority,
                    n.expiration, n.collapse_id, n.payload, n.accepted_at, n.state, n.trace, t.ref, t.bundle_id AS app,
                    t.environment AS tokenEnvironment, t.device_id
                FROM notification AS n JOIN token_ref AS t ON t.token = n.token ORDER BY n.seq
                """
        )
        let insert = try db.makeStatement(
            sql: """
                INSERT INTO notification_v10 (seq, apns_id, apns_id_text, token_ref, topic, bundle_id, environment,
                    push_type, priority, expiration, collapse_id, payload, accepted_at, state, trace)
                VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)
                """
        )
        while let row = try rows.next() {
            let sequence: Int64 = row["seq"]
            let key: String = row["apns_id"]
            let text: String = row["apns_id_text"]
            let app: String = row["app"]
            let environment: String = row["environment"]
            let device: String? = row["device_id"]
            let acceptedAt: Int64 = row["accepted_at"]
            guard let id = NotificationID(key), let lines = TraceText.lines(row["trace"], acceptedAt: acceptedAt, device: nil) else {
                throw StoreError.corruptRecord.with(detail: "notification \(sequence)")
            }
            let arguments: [(any DatabaseValueConvertible)?] = [
                sequence, Data(SQLiteStore.keyBytes(id)), SQLiteStore.storedIDText(text, key: key), row["ref"] as Int64,
                SQLiteStore.unlessSame(row["topic"], as: app), SQLiteStore.unlessSame(row["bundle_id"], as: app),
                SQLiteStore.unlessSame(environment, as: row["tokenEnvironment"]), row["push_type"] as String,
                row["priority"] as Int64, row["expiration"] as Int64?, row["collapse_id"] as String?, row["payload"] as Data,
                acceptedAt, row["state"] as String, TraceText.encode(lines, acceptedAt: acceptedAt, device: device),
            ]
            try insert.execute(arguments: StatementArguments(arguments))
        }
        let counter = try Int64.fetchOne(db, sql: "SELECT seq FROM sqlite_sequence WHERE name = 'notification'") ?? 0
        try db.execute(sql: "DROP TABLE notification")
        try db.execute(sql: "ALTER TABLE notification_v10 RENAME TO notification")
        try db.execute(sql: "DELETE FROM sqlite_sequence WHERE name IN ('notification', 'notification_v10')")
        try db.execute(
            sql: "INSERT INTO sqlite_sequence (name, seq) VALUES ('notification', max(?, (SELECT coalesce(max(seq), 0) FROM notification)))",
            arguments: [counter]
        )
        try db.execute(sql: "CREATE INDEX notification_by_token_window ON notification (seq >> 10, token_ref)")
        try db.execute(sql: "CREATE INDEX notification_stored ON notification (seq) WHERE state = 'stored'")
    }
}
