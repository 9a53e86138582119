#ifndef CHERALDSQLITE_H
#define CHERALDSQLITE_H

/// Turns SQLite's memory statistics off, process-wide.
///
/// Why: with them on, every allocation and free inside SQLite takes a global mutex to keep the counters; Herald
/// never reads them (docs/performance.md, "Where it stands"). SQLite takes the setting only before it is
/// initialized, that is before the process opens its first connection.
///
/// Returns 0 when the setting took, -1 when SQLite was already initialized (the statistics then stay on).
int herald_sqlite_disable_memory_statistics(void);

/// 1 when SQLite counts the memory it has in use (its statistics are on), 0 when that count is zero (they are off).
/// Meaningful once the process has a connection open: with statistics on, an open connection has memory in use.
int herald_sqlite_memory_statistics_enabled(void);

#endif
