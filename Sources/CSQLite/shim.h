#ifndef JUKEBOX_CSQLITE_SHIM_H
#define JUKEBOX_CSQLITE_SHIM_H
#include <sqlite3.h>

/* SQLITE_TRANSIENT is a macro around a cast that Swift cannot import. */
static inline sqlite3_destructor_type jb_sqlite_transient(void) { return SQLITE_TRANSIENT; }

/* sqlite3_db_config is variadic, which Swift cannot call. */
static inline int jb_sqlite_no_checkpoint_on_close(sqlite3 *db) {
    return sqlite3_db_config(db, SQLITE_DBCONFIG_NO_CKPT_ON_CLOSE, 1, (int *)0);
}
#endif
