import GRDB

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
}
