/// Herald's tables on PostgreSQL, as named migrations.
///
/// Rules: a migration is frozen once released — never edited, only followed by a new one; each runs in its own
/// transaction together with the row in `herald_migration` that records it, so a migration is applied whole or not at
/// all. Several nodes may start at once: the first takes a session-level advisory lock (``migrationLockKey``) and the
/// others wait for it, then find the migrations applied.
///
/// The tables keep what the SQLite store keeps (Sources/HeraldStore/SQLite/SQLiteSchema.swift) with the same rules
/// (CHECKs, the registry revision, tokens never deleted and never moved to another app or device), in PostgreSQL's
/// natural form rather than SQLite's compact one: an `apns-id` is a `uuid`, a trace is rows of `trace_event` keyed by
/// `apns-id` (so that a replaced notification's history stays with its `apns-id` without being copied).
enum PostgresSchema {
    /// A migration: its name (recorded in `herald_migration`) and its statements.
    struct Migration: Sendable {
        var name: String
        var statements: [String]
    }

    /// The key of the advisory lock that serialises migrations across nodes ("HERALDMG" in ASCII).
    static let migrationLockKey: Int64 = 0x4845_5241_4C44_4D47

    /// Records which migrations ran; made before any migration, outside of them.
    static let bookkeeping = """
        CREATE TABLE IF NOT EXISTS herald_migration (
            name text PRIMARY KEY,
            applied_at timestamptz NOT NULL DEFAULT now()
        )
        """

    /// Every migration, oldest first.
    static let migrations: [Migration] = [initial, cluster, console, webPush]

    /// `0001-initial`: the registry (keys, apps, devices, tokens), notifications and their traces, channels.
    static let initial = Migration(
        name: "0001-initial",
        statements: [
            """
            CREATE TABLE registry_revision (
                id integer PRIMARY KEY CHECK (id = 1),
                value bigint NOT NULL CHECK (value >= 0)
            )
            """,
            "INSERT INTO registry_revision (id, value) VALUES (1, 0)",
            // Any change of a key or an app moves the revision, so that every node's cache notices it. The UPDATE takes
            // the row's lock until commit: registry writes are serialised, and revisions grow in commit order.
            """
            CREATE FUNCTION herald_registry_changed() RETURNS trigger LANGUAGE plpgsql AS $$
            BEGIN
                UPDATE registry_revision SET value = value + 1 WHERE id = 1;
                RETURN NULL;
            END
            $$
            """,
            // A token row carries the revision of its last change.
            """
            CREATE FUNCTION herald_token_revision() RETURNS trigger LANGUAGE plpgsql AS $$
            BEGIN
                IF TG_OP = 'UPDATE' AND (NEW.token IS DISTINCT FROM OLD.token OR NEW.bundle_id IS DISTINCT FROM OLD.bundle_id
                    OR NEW.environment IS DISTINCT FROM OLD.environment OR NEW.device_id IS DISTINCT FROM OLD.device_id) THEN
                    RAISE EXCEPTION 'a device token''s app, environment and device never change' USING ERRCODE = 'check_violation';
                END IF;
                UPDATE registry_revision SET value = value + 1 WHERE id = 1 RETURNING value INTO NEW.revision;
                RETURN NEW;
            END
            $$
            """,
            """
            CREATE FUNCTION herald_token_never_deleted() RETURNS trigger LANGUAGE plpgsql AS $$
            BEGIN
                RAISE EXCEPTION 'device tokens are unregistered, never deleted' USING ERRCODE = 'check_violation';
            END
            $$
            """,
            """
            CREATE TABLE signing_key (
                key_id text PRIMARY KEY CHECK (key_id ~ '^[A-Za-z0-9._-]{1,64}$'),
                team_id text NOT NULL CHECK (team_id ~ '^[A-Za-z0-9._-]{1,64}$'),
                environment text NOT NULL CHECK (environment IN ('sandbox', 'production', 'both')),
                topics text CHECK (topics IS NULL OR json_typeof(topics::json) = 'array'),
                public_key_pem text NOT NULL CHECK (public_key_pem LIKE '-----BEGIN PUBLIC KEY-----%'),
                created_at bigint NOT NULL
            )
            """,
            """
            CREATE TRIGGER signing_key_changed AFTER INSERT OR UPDATE OR DELETE ON signing_key
            FOR EACH STATEMENT EXECUTE FUNCTION herald_registry_changed()
            """,
            """
            CREATE TABLE app (
                bundle_id text PRIMARY KEY CHECK (bundle_id ~ '^[A-Za-z0-9._-]{1,255}$'),
                team_id text NOT NULL CHECK (team_id ~ '^[A-Za-z0-9._-]{1,64}$'),
                created_at bigint NOT NULL
            )
            """,
            """
            CREATE TRIGGER app_changed AFTER INSERT OR UPDATE OR DELETE ON app
            FOR EACH STATEMENT EXECUTE FUNCTION herald_registry_changed()
            """,
            """
            CREATE TABLE device (
                id text PRIMARY KEY CHECK (id ~ '^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$'),
                name text NOT NULL CHECK (char_length(name) BETWEEN 1 AND 255),
                secret_sha256 text NOT NULL CHECK (secret_sha256 ~ '^[0-9a-f]{64}$'),
                created_at bigint NOT NULL,
                added bigint GENERATED ALWAYS AS IDENTITY UNIQUE
            )
            """,
            "CREATE INDEX device_by_creation ON device (created_at, added)",
            """
            CREATE TABLE device_token (
                token text PRIMARY KEY CHECK (token ~ '^([0-9a-f]{2}){8,100}$'),
                bundle_id text NOT NULL CHECK (char_length(bundle_id) BETWEEN 1 AND 255),
                environment text NOT NULL CHECK (environment IN ('sandbox', 'production')),
                device_id text CHECK (device_id IS NULL OR char_length(device_id) BETWEEN 1 AND 255),
                registered_at bigint NOT NULL,
                unregistered_at bigint CHECK (unregistered_at IS NULL OR unregistered_at >= registered_at),
                revision bigint NOT NULL DEFAULT 0,
                kind text NOT NULL DEFAULT 'device' CHECK (kind IN ('device', 'activity', 'push-to-start')),
                activity_type text CHECK (activity_type IS NULL OR char_length(activity_type) BETWEEN 1 AND 255)
            )
            """,
            "CREATE INDEX device_token_by_revision ON device_token (revision)",
            "CREATE INDEX device_token_by_device ON device_token (device_id) WHERE device_id IS NOT NULL",
            """
            CREATE UNIQUE INDEX device_token_active_per_app ON device_token (device_id, bundle_id, environment)
            WHERE unregistered_at IS NULL AND device_id IS NOT NULL AND kind = 'device'
            """,
            """
            CREATE UNIQUE INDEX device_token_active_push_to_start ON device_token (device_id, bundle_id, environment, activity_type)
            WHERE unregistered_at IS NULL AND device_id IS NOT NULL AND kind = 'push-to-start'
            """,
            """
            CREATE TRIGGER device_token_revision BEFORE INSERT OR UPDATE ON device_token
            FOR EACH ROW EXECUTE FUNCTION herald_token_revision()
            """,
            """
            CREATE TRIGGER device_token_never_deleted BEFORE DELETE ON device_token
            FOR EACH ROW EXECUTE FUNCTION herald_token_never_deleted()
            """,
            """
            CREATE TABLE notification (
                seq bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
                apns_id uuid NOT NULL UNIQUE,
                apns_id_text text NOT NULL CHECK (char_length(apns_id_text) = 36),
                token text NOT NULL REFERENCES device_token (token),
                topic text NOT NULL CHECK (char_length(topic) BETWEEN 1 AND 255),
                bundle_id text NOT NULL CHECK (char_length(bundle_id) BETWEEN 1 AND 255),
                environment text NOT NULL CHECK (environment IN ('sandbox', 'production')),
                push_type text NOT NULL CHECK (char_length(push_type) BETWEEN 1 AND 64),
                priority integer NOT NULL CHECK (priority IN (1, 5, 10)),
                expiration bigint CHECK (expiration IS NULL OR expiration >= 0),
                collapse_id text CHECK (collapse_id IS NULL OR octet_length(collapse_id) <= 64),
                payload bytea NOT NULL CHECK (octet_length(payload) BETWEEN 1 AND 5120),
                accepted_at bigint NOT NULL,
                state text NOT NULL DEFAULT 'stored'
                    CHECK (state IN ('stored', 'delivered', 'expired', 'replaced', 'discarded'))
            )
            """,
            "CREATE INDEX notification_by_token ON notification (token, seq)",
            "CREATE INDEX notification_stored ON notification (seq) WHERE state = 'stored'",
            // One row per event of an `apns-id`'s trace, in `ord` order — except a notification's own `accepted` event,
            // which the row itself stands for (its detail is made from the row when read): a row of its own per
            // accepted notification would double the inserts of group commit. When a reused `apns-id` replaces the
            // row, the older acceptance is written out here, ordered before the older row's other events
            // (PostgresStore+GroupCommit.swift), followed by `replaced` and the newer `accepted`.
            "CREATE SEQUENCE trace_event_order",
            """
            CREATE TABLE trace_event (
                apns_id uuid NOT NULL,
                ord bigint NOT NULL DEFAULT nextval('trace_event_order'),
                at bigint NOT NULL,
                kind text NOT NULL CHECK (kind ~ '^[a-z-]{1,64}$'),
                detail json CHECK (detail IS NULL OR json_typeof(detail) = 'object'),
                seq bigint
            )
            """,
            "CREATE INDEX trace_event_by_apns_id ON trace_event (apns_id, ord)",
            // The written-out acceptances, by the sequence of the notification they accepted (few: reused ids only).
            "CREATE INDEX trace_event_acceptance ON trace_event (seq) WHERE kind = 'accepted'",
            """
            CREATE TABLE channel (
                id text PRIMARY KEY CHECK (char_length(id) BETWEEN 1 AND 64),
                bundle_id text NOT NULL CHECK (char_length(bundle_id) BETWEEN 1 AND 255),
                environment text NOT NULL CHECK (environment IN ('sandbox', 'production')),
                storage_policy integer NOT NULL CHECK (storage_policy IN (0, 1)),
                push_type text NOT NULL CHECK (char_length(push_type) BETWEEN 1 AND 64),
                created_at bigint NOT NULL
            )
            """,
            "CREATE INDEX channel_by_app ON channel (bundle_id, environment)",
            """
            CREATE TABLE channel_message (
                channel_id text PRIMARY KEY REFERENCES channel (id) ON DELETE CASCADE,
                request_id text NOT NULL CHECK (char_length(request_id) BETWEEN 1 AND 64),
                priority integer NOT NULL,
                expiration bigint NOT NULL,
                accepted_at bigint NOT NULL,
                keep_until bigint NOT NULL,
                payload bytea NOT NULL CHECK (octet_length(payload) <= 5120)
            )
            """,
        ]
    )

    /// `0002-cluster`: the nodes of a cluster and the route of each connected token (docs/cluster.md).
    ///
    /// A node is alive while its `heartbeat_at` (the database's clock, so that nodes' clocks need not agree) is younger
    /// than the lease. A route says which node holds a token's device link; a route of a node that is not alive counts
    /// as none. Neither table is referenced by the others: a route may name a node that has not written its first
    /// heartbeat yet.
    static let cluster = Migration(
        name: "0002-cluster",
        statements: [
            """
            CREATE TABLE node (
                id text PRIMARY KEY CHECK (id ~ '^[A-Za-z0-9._:-]{1,48}$'),
                started_at timestamptz NOT NULL DEFAULT now(),
                heartbeat_at timestamptz NOT NULL DEFAULT now()
            )
            """,
            """
            CREATE TABLE token_route (
                token text PRIMARY KEY REFERENCES device_token (token),
                node_id text NOT NULL CHECK (char_length(node_id) BETWEEN 1 AND 48),
                since timestamptz NOT NULL DEFAULT now()
            )
            """,
            "CREATE INDEX token_route_by_node ON token_route (node_id)",
        ]
    )

    /// `0003-console`: each device's newest screen, which the web console of every node of a cluster reads (the node
    /// holding the device's link writes it; docs/cluster.md, "The console").
    static let console = Migration(
        name: "0003-console",
        statements: [
            """
            CREATE TABLE device_screen (
                device_id text PRIMARY KEY REFERENCES device (id) ON DELETE CASCADE,
                screen bytea NOT NULL,
                updated_at bigint NOT NULL,
                node_id text NOT NULL CHECK (char_length(node_id) BETWEEN 1 AND 48)
            )
            """
        ]
    )

    /// `0004-web-push`: web push subscriptions in the token registry (kind `web-push`, docs/web-push.md), one active per
    /// device, origin and `applicationServerKey`; a notification's payload up to 8192 bytes, room for a web push
    /// message's envelope (its body of at most 4096 bytes in base64url, ``WebPushStoredMessage`` in HeraldWebPush). The
    /// same change as SQLite's v11.
    static let webPush = Migration(
        name: "0004-web-push",
        statements: [
            "ALTER TABLE device_token DROP CONSTRAINT device_token_kind_check",
            """
            ALTER TABLE device_token ADD CONSTRAINT device_token_kind_check
                CHECK (kind IN ('device', 'activity', 'push-to-start', 'web-push'))
            """,
            """
            CREATE UNIQUE INDEX device_token_active_web_push ON device_token (device_id, bundle_id, environment, activity_type)
            WHERE unregistered_at IS NULL AND device_id IS NOT NULL AND kind = 'web-push'
            """,
            "ALTER TABLE notification DROP CONSTRAINT notification_payload_check",
            "ALTER TABLE notification ADD CONSTRAINT notification_payload_check CHECK (octet_length(payload) BETWEEN 1 AND 8192)",
        ]
    )
}
