#ifndef JUKEBOX_CSQLITE_SHIM_H
#define JUKEBOX_CSQLITE_SHIM_H
#include <sqlite3.h>

/* SQLITE_TRANSIENT is a macro around a cast that Swift cannot import. */
static inline sqlite3_destructor_type jb_sqlite_transient(void) { return SQLITE_TRANSIENT; }
#endif
