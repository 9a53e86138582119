#include "CHeraldSQLite.h"
#include <sqlite3.h>

int herald_sqlite_disable_memory_statistics(void) {
    return sqlite3_config(SQLITE_CONFIG_MEMSTATUS, 0) == SQLITE_OK ? 0 : -1;
}

int herald_sqlite_memory_statistics_enabled(void) {
    // With statistics off SQLite counts nothing, so the memory in use stays zero.
    sqlite3_int64 current = 0;
    sqlite3_int64 highwater = 0;
    sqlite3_status64(SQLITE_STATUS_MEMORY_USED, &current, &highwater, 0);
    return current > 0 ? 1 : 0;
}
