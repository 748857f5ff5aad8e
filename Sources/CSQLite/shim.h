#ifndef SOUNDTRACE_CSQLITE_SHIM_H
#define SOUNDTRACE_CSQLITE_SHIM_H
#include <sqlite3.h>

// SQLITE_TRANSIENT is a macro casting -1 to a function pointer, which Swift cannot import.
static inline sqlite3_destructor_type soundtrace_sqlite_transient(void) { return SQLITE_TRANSIENT; }

// sqlite3_db_config is variadic, which Swift cannot call. Closing a connection normally checkpoints
// the WAL into the main file; before a damaged database is moved aside we want its files left exactly
// as they were, so this turns that checkpoint off for one connection.
static inline int soundtrace_sqlite_disable_checkpoint_on_close(sqlite3 *db) {
    return sqlite3_db_config(db, SQLITE_DBCONFIG_NO_CKPT_ON_CLOSE, 1, (int *)0);
}
#endif
