// What the same work costs when it arrives alone: CPU time of one unit of work done back to back, after the thread
// slept for a gap, and after it spun for the same gap. Two kinds of work: a pass over a 512 KiB array (no system
// call) and a one-row SQLite transaction in WAL mode with synchronous=FULL (Herald's commit: a page written and
// fdatasync).
// Usage: coldcore KIND MODE GAP_US COUNT DIR   KIND = memory | sqlite; MODE = back | sleep | spin
// Prints the median CPU time (user + system of this thread) per unit in microseconds.
#include <sqlite3.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

// Where each array pass's sum goes, once per pass (the array is volatile, so its reads stay).
static volatile long sink;

static double microseconds(clockid_t clock) {
    struct timespec t;
    clock_gettime(clock, &t);
    return t.tv_sec * 1e6 + t.tv_nsec / 1e3;
}

static int compare(const void *a, const void *b) {
    double x = *(const double *)a, y = *(const double *)b;
    return x < y ? -1 : x > y;
}

static void check(int rc, sqlite3 *db, const char *what) {
    if (rc != SQLITE_OK && rc != SQLITE_DONE && rc != SQLITE_ROW) {
        fprintf(stderr, "coldcore: %s: %s\n", what, sqlite3_errmsg(db));
        exit(1);
    }
}

int main(int argc, char **argv) {
    if (argc != 6) {
        fprintf(stderr, "usage: coldcore memory|sqlite back|sleep|spin GAP_US COUNT DIR\n");
        return 2;
    }
    int sqlite = strcmp(argv[1], "sqlite") == 0;
    const char *mode = argv[2];
    long long gap = atoll(argv[3]);
    int count = atoi(argv[4]);
    if (count < 1 || gap < 0 || (strcmp(mode, "back") && strcmp(mode, "sleep") && strcmp(mode, "spin"))) {
        fprintf(stderr, "coldcore: bad arguments\n");
        return 2;
    }

    size_t words = 512 * 1024 / sizeof(long);
    volatile long *array = malloc(words * sizeof(long));
    for (size_t i = 0; i < words; i++) array[i] = (long)i;

    sqlite3 *db = NULL;
    sqlite3_stmt *insert = NULL;
    if (sqlite) {
        char path[4096];
        snprintf(path, sizeof path, "%s/coldcore-%s.sqlite", argv[5], mode);
        remove(path);
        check(sqlite3_open(path, &db), db, "open");
        check(sqlite3_exec(db, "PRAGMA journal_mode=WAL; PRAGMA synchronous=FULL;"
                               "CREATE TABLE t(id INTEGER PRIMARY KEY, payload BLOB NOT NULL)", 0, 0, 0), db, "schema");
        check(sqlite3_prepare_v2(db, "INSERT INTO t(payload) VALUES (randomblob(300))", -1, &insert, 0), db, "prepare");
    }

    double *costs = malloc(sizeof(double) * (size_t)count);
    for (int k = 0; k < count + 10; k++) {
        if (strcmp(mode, "sleep") == 0) {
            struct timespec pause = {(time_t)(gap / 1000000), (long)(gap % 1000000) * 1000};
            nanosleep(&pause, NULL);
        } else if (strcmp(mode, "spin") == 0) {
            double until = microseconds(CLOCK_MONOTONIC) + (double)gap;
            while (microseconds(CLOCK_MONOTONIC) < until) __asm__ volatile("pause");
        }
        double start = microseconds(CLOCK_THREAD_CPUTIME_ID);
        if (sqlite) {
            check(sqlite3_exec(db, "BEGIN IMMEDIATE", 0, 0, 0), db, "begin");
            check(sqlite3_step(insert), db, "insert");
            sqlite3_reset(insert);
            check(sqlite3_exec(db, "COMMIT", 0, 0, 0), db, "commit");
        } else {
            long sum = 0;
            for (size_t i = 0; i < words; i++) sum += array[(i * 4099) % words];
            sink = sum;
        }
        double cost = microseconds(CLOCK_THREAD_CPUTIME_ID) - start;
        if (k >= 10) costs[k - 10] = cost;  // the first ten warm up
    }
    qsort(costs, (size_t)count, sizeof(double), compare);
    printf("%s %s %lld %.1f\n", argv[1], mode, gap, costs[count / 2]);
    return 0;
}
