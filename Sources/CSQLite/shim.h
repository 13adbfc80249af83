// Shims for the parts of the SQLite C API that Swift cannot call or see directly.
#include <sqlite3.h>

// SQLITE_TRANSIENT is a cast macro Swift cannot import: bound text/blobs are copied by SQLite.
static inline sqlite3_destructor_type csqlite_transient(void) { return SQLITE_TRANSIENT; }

// sqlite3_db_config is variadic; these wrap the integer-flag form.
static inline int csqlite_db_config_int(sqlite3 *db, int op, int value, int *out) {
    return sqlite3_db_config(db, op, value, out);
}
