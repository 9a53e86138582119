/*
 * What SQLite alone costs per notification on Herald's accept path: the group commit's INSERT and the delivery
 * journal's UPDATE, with Herald's schema, statements, pragmas and batch shape, and nothing else (no HTTP/2, no Swift).
 *
 *   sqlite_floor HERALD.sqlite [N] [BATCH] [JOURNAL]
 *
 * HERALD.sqlite: a Herald data file (`<data-dir>/herald.sqlite`), read only for its schema, which a new temporary
 * file gets (run.sh makes one with `herald tokens register`).
 * N notifications (default 200000) in transactions of BATCH (default 500), all to one device token, as the gateway
 * benchmark sends them. JOURNAL 1 (default) also runs the journal's transaction after each batch: each notification's
 * `stored` and `replaced` lines in one UPDATE that moves its state, as Herald writes them for an offline device whose
 * previous notification the next one replaces. JOURNAL 0 measures the INSERT alone.
 *
 * Prints the process's CPU time (user + system) per notification, in microseconds.
 */
#include <sqlite3.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <unistd.h>

static double cpu_seconds(void) {
    struct rusage usage;
    getrusage(RUSAGE_SELF, &usage);
    return usage.ru_utime.tv_sec + usage.ru_utime.tv_usec / 1e6 + usage.ru_stime.tv_sec + usage.ru_stime.tv_usec / 1e6;
}

static void fail(sqlite3 *db, const char *what) {
    fprintf(stderr, "sqlite_floor: %s: %s\n", what, sqlite3_errmsg(db));
    exit(1);
}

static void execute(sqlite3 *db, const char *sql) {
    if (sqlite3_exec(db, sql, 0, 0, 0) != SQLITE_OK) fail(db, sql);
}

static sqlite3_stmt *prepare(sqlite3 *db, const char *sql) {
    sqlite3_stmt *statement;
    if (sqlite3_prepare_v3(db, sql, -1, SQLITE_PREPARE_PERSISTENT, &statement, 0) != SQLITE_OK) fail(db, sql);
    return statement;
}

static void run(sqlite3 *db, sqlite3_stmt *statement) {
    int code = sqlite3_step(statement);
    if (code != SQLITE_DONE) fail(db, sqlite3_sql(statement));
    sqlite3_reset(statement);
}

int main(int argc, char **argv) {
    if (argc < 2) {
        fprintf(stderr, "usage: sqlite_floor HERALD.sqlite [N] [BATCH] [JOURNAL]\n");
        return 2;
    }
    const int count = argc > 2 ? atoi(argv[2]) : 200000;
    const int batch = argc > 3 ? atoi(argv[3]) : 500;
    const int journal = argc > 4 ? atoi(argv[4]) : 1;
    if (count <= 0 || batch <= 0) {
        fprintf(stderr, "sqlite_floor: N and BATCH must be positive\n");
        return 2;
    }
    char path[] = "/tmp/herald-sqlite-floor-XXXXXX";
    int fd = mkstemp(path);
    if (fd < 0) {
        perror("mkstemp");
        return 1;
    }
    close(fd);
    unlink(path);

    /* As Herald: SQLite's memory statistics off, WAL, synchronous = FULL, foreign keys on. */
    sqlite3_config(SQLITE_CONFIG_MEMSTATUS, 0);
    sqlite3 *db;
    if (sqlite3_open(path, &db) != SQLITE_OK) fail(db, path);
    execute(db, "PRAGMA journal_mode = WAL");
    execute(db, "PRAGMA synchronous = FULL");
    execute(db, "PRAGMA foreign_keys = ON");
    /* Herald's schema, in the order it was made (tables before their indexes and triggers). */
    sqlite3 *source;
    if (sqlite3_open_v2(argv[1], &source, SQLITE_OPEN_READONLY, 0) != SQLITE_OK) fail(source, argv[1]);
    sqlite3_stmt *schema = prepare(source,
        "SELECT sql FROM sqlite_schema WHERE sql IS NOT NULL AND name NOT LIKE 'sqlite_%' ORDER BY rowid");
    int objects = 0;
    while (sqlite3_step(schema) == SQLITE_ROW) {
        execute(db, (const char *)sqlite3_column_text(schema, 0));
        objects++;
    }
    sqlite3_finalize(schema);
    sqlite3_close(source);
    if (objects == 0) {
        fprintf(stderr, "sqlite_floor: %s holds no schema\n", argv[1]);
        return 1;
    }
    execute(db, "INSERT INTO registry_revision (id, value) VALUES (1, 0)");
    const char *token = "0123456789abcdef0123456789abcdef0123456789abcdef0123456789abcdef";
    sqlite3_stmt *registration = prepare(db,
        "INSERT INTO device_token (token, bundle_id, environment, registered_at) VALUES (?, 'com.example.app', 'sandbox', 1)");
    sqlite3_bind_text(registration, 1, token, -1, SQLITE_STATIC);
    run(db, registration);
    sqlite3_finalize(registration);

    /* The group commit's insert and the journal's two-line update (SQLiteStore+GroupCommit, SQLiteStore+Delivery). The
     * insert names the token by number (schema v10): topic, bundle id and environment are NULL when the token's. */
    sqlite3_stmt *insert = prepare(db,
        "INSERT INTO notification (apns_id, apns_id_text, token_ref, topic, bundle_id, environment, push_type, "
        "priority, expiration, collapse_id, payload, accepted_at, trace) "
        "SELECT ?1, ?2, t.ref, nullif(?4, t.bundle_id), nullif(?5, t.bundle_id), nullif(?6, t.environment), ?7, ?8, "
        "?9, ?10, ?11, ?12, ?13 "
        "FROM (SELECT ?3 AS token) AS pushed LEFT JOIN token_ref AS t ON t.token = pushed.token WHERE true "
        "ON CONFLICT (apns_id) DO NOTHING");
    /* Herald appends each line with its SQL function `herald_trace_append` (C, registered by Herald on its
     * connection; bench/delivery's profile gives its cost); here SQLite's `||` appends the same arguments: the line's
     * time and kind, its detail through json(), the token's device. */
    sqlite3_stmt *update = prepare(db,
        "UPDATE notification SET state = ?4, trace = trace || ?1 || coalesce(json(?2), '') "
        "|| coalesce((SELECT device_id FROM token_ref WHERE ref = token_ref), '') || char(10) "
        "|| ?5 || coalesce(json(?6), '') || char(10) WHERE seq = ?3 AND state = 'stored'");

    char payload[200];
    memset(payload, ' ', sizeof payload);
    memcpy(payload, "{\"aps\":{\"alert\":\"Hello\"}", 24);
    payload[sizeof payload - 1] = '}';
    sqlite3_int64 *sequences = malloc(sizeof(sqlite3_int64) * (size_t)batch);
    srand(1);

    double start = cpu_seconds();
    long long accepted = 0;
    for (int done = 0; done < count; done += batch) {
        int size = count - done < batch ? count - done : batch;
        execute(db, "BEGIN IMMEDIATE");
        for (int index = 0; index < size; index++, accepted++) {
            /* A time-ordered (version 7) apns-id, as the gateway generates them: its 16 bytes are the key, and a
             * generated (lowercase) id stores no text of its own (SQLiteStore+CompactColumns). */
            unsigned char id[16];
            long long now = 1795000000000LL + accepted / 50;
            for (int byte = 0; byte < 6; byte++) id[byte] = (unsigned char)(now >> (40 - 8 * byte));
            for (int byte = 6; byte < 16; byte++) id[byte] = (unsigned char)rand();
            id[6] = (unsigned char)(0x70 | (id[6] & 0x0f));
            id[8] = (unsigned char)(0x80 | (id[8] & 0x3f));
            sqlite3_bind_blob(insert, 1, id, sizeof id, SQLITE_TRANSIENT);
            sqlite3_bind_null(insert, 2);
            sqlite3_bind_text(insert, 3, token, 64, SQLITE_STATIC);
            sqlite3_bind_text(insert, 4, "com.example.app", -1, SQLITE_STATIC);
            sqlite3_bind_text(insert, 5, "com.example.app", -1, SQLITE_STATIC);
            sqlite3_bind_text(insert, 6, "sandbox", -1, SQLITE_STATIC);
            sqlite3_bind_text(insert, 7, "alert", -1, SQLITE_STATIC);
            sqlite3_bind_int64(insert, 8, 10);
            sqlite3_bind_null(insert, 9);
            sqlite3_bind_null(insert, 10);
            sqlite3_bind_blob(insert, 11, payload, sizeof payload, SQLITE_STATIC);
            sqlite3_bind_int64(insert, 12, now);
            sqlite3_bind_text(insert, 13, "A0\n", -1, SQLITE_STATIC); /* TraceText.acceptedLine */
            run(db, insert);
            sequences[index] = sqlite3_last_insert_rowid(db);
        }
        execute(db, "COMMIT");
        if (!journal) continue;
        execute(db, "BEGIN IMMEDIATE");
        for (int index = 0; index < size; index++) {
            sqlite3_bind_text(update, 1, "9s", -1, SQLITE_STATIC);
            sqlite3_bind_text(update, 2, "{\"reason\":\"device-offline\",\"expiresAt\":1797592000000}", -1, SQLITE_STATIC);
            sqlite3_bind_int64(update, 3, sequences[index]);
            sqlite3_bind_text(update, 4, "replaced", -1, SQLITE_STATIC);
            sqlite3_bind_text(update, 5, "9r", -1, SQLITE_STATIC);
            sqlite3_bind_text(update, 6,
                "{\"reason\":\"offline-storage-limit\",\"by\":\"01a20a4f-a00a-7e96-afe5-174576776c25\"}", -1, SQLITE_STATIC);
            run(db, update);
        }
        execute(db, "COMMIT");
    }
    double seconds = cpu_seconds() - start;
    printf("%.2f\n", seconds * 1e6 / count);
    sqlite3_close(db);
    char command[200];
    snprintf(command, sizeof command, "rm -f '%s' '%s-wal' '%s-shm'", path, path, path);
    if (system(command) != 0) fprintf(stderr, "sqlite_floor: could not remove %s\n", path);
    free(sequences);
    return 0;
}
