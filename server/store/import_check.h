/* Files from elsewhere: an SQLite file that this server did not write (an
 * uploaded session export) is opened only through a hardened, read-only
 * connection and checked against the schema that Paddock's own migrations
 * make before any of its rows is used (docs/security.md "Files from
 * elsewhere: imports"). */
#ifndef PDK_IMPORT_CHECK_H
#define PDK_IMPORT_CHECK_H

#include <stddef.h>
#include <stdint.h>

#include "sim/error.h"

/* What an export file must look like at each migration level 1..newest:
 * its tables, indexes, columns, schema_migrations rows and user_version,
 * read from fresh in-memory databases made by the migrations themselves
 * (plus the export's own paddock_export table). Immutable once made, so
 * any number of threads may check files against it at once. */
typedef struct pdk_import_schema pdk_import_schema;

/* Makes the reference from migrations_dir's NNNN_name.sql files. Errors:
 * PDK_ERR_INVALID_ARGUMENT (NULL), PDK_ERR_IO, PDK_ERR_PARSE (the folder or
 * a migration file, as pdk_store_open names them), PDK_ERR_DB (a migration
 * failed), PDK_ERR_NO_MEMORY. */
pdk_error pdk_import_schema_make(const char *migrations_dir, pdk_import_schema **out, char *err,
                                 size_t err_len);
void pdk_import_schema_free(pdk_import_schema *schema);
/* The newest migration level the reference knows. */
int pdk_import_schema_newest(const pdk_import_schema *schema);

/* What a file that passed the check holds. */
typedef struct pdk_import_facts {
    int schema_version;           /* its migration level, 1..newest */
    uint64_t original_session_id; /* its one session */
} pdk_import_facts;

/* Opens path read-only through a hardened connection (defensive mode, no
 * trusted schema, no extensions, no ATTACH, tight limits) and checks it
 * whole: the SQLite header, every schema object, column, index, migration
 * row and user_version against schema at the file's migration level, no
 * trigger or view at all, PRAGMA quick_check, and the export's own rows
 * (one paddock_export row of a known format naming the file's one
 * session). Nothing is written anywhere. err names what was wrong, with
 * path first ("PATH: import refused: table vehicles has an unexpected column
 * evil"). Errors: PDK_ERR_INVALID_ARGUMENT (NULL), PDK_ERR_IO (unreadable),
 * PDK_ERR_PARSE (not SQLite, damaged, or not what Paddock makes),
 * PDK_ERR_DB_TOO_NEW (a newer migration level or export format),
 * PDK_ERR_NO_MEMORY. */
pdk_error pdk_import_check(const pdk_import_schema *schema, const char *path, pdk_import_facts *out,
                           char *err, size_t err_len);

#endif
