/* Files from elsewhere: the hardened connection an uploaded SQLite file is
 * opened through, the reference schema made by Paddock's own migrations,
 * and the check that compares the two before any row of the file is used.
 *
 * The hardening follows SQLite's "Defense Against The Dark Arts"
 * (https://www.sqlite.org/security.html), section 1.2, for untrusted
 * database files: defensive mode, no trusted schema (functions with side
 * effects never run from the file's own schema), lowered limits, cell size
 * checks, no memory-mapped I/O, and PRAGMA quick_check before use. The
 * connection is read-only and immutable besides: the file is the server's
 * own private copy of the upload, so nothing else writes it, and no journal
 * beside it is ever read. */
#define _POSIX_C_SOURCE 200809L

#include "import_check.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "store_internal.h"

/* Limits on the check's connection (sqlite3_limit). security.html's own
 * suggestions, except where a file Paddock writes needs more:
 * - LENGTH: the largest string or blob the check may read. It reads only
 *   the schema, migration names and the export row, so 1 MB (security.html's
 *   value) bounds what a hostile value can make it allocate.
 * - SQL_LENGTH: also bounds each CREATE statement of the file's schema,
 *   which SQLite parses at open; Paddock's longest is well under 1 KB.
 * - COLUMN: Paddock's widest table has 17 columns.
 * - EXPR_DEPTH, COMPOUND_SELECT, FUNCTION_ARG, LIKE_PATTERN_LENGTH,
 *   VARIABLE_NUMBER, TRIGGER_DEPTH: security.html's values; the check's
 *   own statements are flat.
 * - VDBE_OP: quick_check's program grows with the number of tables and
 *   indexes; 25,000 (security.html) leaves room for many times Paddock's.
 * - ATTACHED: 0, the file can never reach another database. */
static const struct {
    int id;
    int value;
} check_limits[] = {
    {SQLITE_LIMIT_LENGTH, 1000000},
    {SQLITE_LIMIT_SQL_LENGTH, 100000},
    {SQLITE_LIMIT_COLUMN, 100},
    {SQLITE_LIMIT_EXPR_DEPTH, 10},
    {SQLITE_LIMIT_COMPOUND_SELECT, 3},
    {SQLITE_LIMIT_VDBE_OP, 25000},
    {SQLITE_LIMIT_FUNCTION_ARG, 8},
    {SQLITE_LIMIT_ATTACHED, 0},
    {SQLITE_LIMIT_LIKE_PATTERN_LENGTH, 50},
    {SQLITE_LIMIT_VARIABLE_NUMBER, 10},
    {SQLITE_LIMIT_TRIGGER_DEPTH, 10},
    {SQLITE_LIMIT_WORKER_THREADS, 0},
};

int pdk_store_harden(sqlite3 *db, int attached, int tight_limits)
{
    static const int off[] = {SQLITE_DBCONFIG_ENABLE_LOAD_EXTENSION, SQLITE_DBCONFIG_TRUSTED_SCHEMA,
                              SQLITE_DBCONFIG_ENABLE_TRIGGER, SQLITE_DBCONFIG_ENABLE_VIEW};
    int rc = sqlite3_db_config(db, SQLITE_DBCONFIG_DEFENSIVE, 1, (int *)NULL);
    for (size_t i = 0; rc == SQLITE_OK && i < sizeof off / sizeof off[0]; i++) {
        /* Triggers and views stay on where Paddock's own database is the
         * main one (its schema may use them one day); the file attached
         * beside it has been checked to have none. */
        if (!tight_limits &&
            (off[i] == SQLITE_DBCONFIG_ENABLE_TRIGGER || off[i] == SQLITE_DBCONFIG_ENABLE_VIEW)) {
            continue;
        }
        rc = sqlite3_db_config(db, off[i], 0, (int *)NULL);
    }
    if (rc != SQLITE_OK) {
        return rc;
    }
    if (tight_limits) {
        for (size_t i = 0; i < sizeof check_limits / sizeof check_limits[0]; i++) {
            sqlite3_limit(db, check_limits[i].id, check_limits[i].value);
        }
    }
    sqlite3_limit(db, SQLITE_LIMIT_ATTACHED, attached);
    char *e = NULL;
    rc =
        sqlite3_exec(db, "PRAGMA trusted_schema=OFF; PRAGMA cell_size_check=ON; PRAGMA mmap_size=0",
                     NULL, NULL, &e);
    sqlite3_free(e);
    return rc;
}

/* ---- A database's schema, described the same way for both sides ---- */

typedef struct column_desc {
    char *name;
    char *decl; /* "INTEGER NOT NULL DEFAULT 0": type, constraints, key part */
} column_desc;

typedef struct object_desc {
    char *type; /* table, index, view, trigger */
    char *name;
    char *tbl_name;
    char *sql; /* NULL for an automatic index */
    column_desc *cols;
    size_t n_cols;
} object_desc;

typedef struct schema_desc {
    object_desc *objs;
    size_t n_objs;
    char **migration_names; /* [v - 1] for version v, 1..n_migrations */
    size_t n_migrations;
    int64_t user_version;
} schema_desc;

struct pdk_import_schema {
    schema_desc *levels; /* [v - 1]: what migrations 1..v make, plus paddock_export */
    int newest;
};

static char *dup_text(const unsigned char *s)
{
    if (!s) {
        return NULL;
    }
    size_t n = strlen((const char *)s) + 1;
    char *p = malloc(n);
    if (p) {
        memcpy(p, s, n);
    }
    return p;
}

/* Text from the file as a message shows it: at most 80 bytes, each byte
 * outside printable ASCII as '?', so that a hostile name can neither
 * break a client's UTF-8 decoding of the Error nor fill it. */
typedef struct shown {
    char text[81];
} shown;

static shown show(const char *in)
{
    shown s;
    size_t n = 0;
    for (; in && in[n] && n < sizeof s.text - 1; n++) {
        unsigned char c = (unsigned char)in[n];
        s.text[n] = c >= 0x20 && c < 0x7f ? (char)c : '?';
    }
    s.text[n] = '\0';
    return s;
}

static void desc_free(schema_desc *d)
{
    for (size_t i = 0; i < d->n_objs; i++) {
        object_desc *o = &d->objs[i];
        free(o->type);
        free(o->name);
        free(o->tbl_name);
        free(o->sql);
        for (size_t c = 0; c < o->n_cols; c++) {
            free(o->cols[c].name);
            free(o->cols[c].decl);
        }
        free(o->cols);
    }
    free(d->objs);
    for (size_t i = 0; i < d->n_migrations; i++) {
        free(d->migration_names[i]);
    }
    free(d->migration_names);
    memset(d, 0, sizeof *d);
}

/* SQLite's own error for rc on db, with "damaged" for the codes a broken
 * file gives. */
static pdk_error sqlite_failure(sqlite3 *db, int rc, const char *path, const char *doing, char *err,
                                size_t err_len)
{
    int primary = rc & 0xff;
    if (primary == SQLITE_NOMEM) {
        pdk_store_errf(err, err_len, "%s: out of memory %s", path, doing);
        return PDK_ERR_NO_MEMORY;
    }
    if (primary == SQLITE_CORRUPT || primary == SQLITE_NOTADB) {
        pdk_store_errf(err, err_len, "%s: import refused: damaged SQLite file (%s: %s)", path,
                       doing, show(sqlite3_errmsg(db)).text);
        return PDK_ERR_PARSE;
    }
    if (primary == SQLITE_IOERR || primary == SQLITE_CANTOPEN) {
        pdk_store_errf(err, err_len, "%s: cannot read it (%s): %s", path, doing,
                       show(sqlite3_errmsg(db)).text);
        return PDK_ERR_IO;
    }
    /* Anything else (a limit reached, a schema SQLite will not parse, a
     * malformed schema) is the file's doing: refused as not Paddock's. */
    pdk_store_errf(err, err_len, "%s: import refused: %s: %s", path, doing,
                   show(sqlite3_errmsg(db)).text);
    return PDK_ERR_PARSE;
}

/* The columns of table as "name" and "decl", through pragma_table_info with
 * the name bound (a hostile name is only ever a bound value). */
static int read_columns(sqlite3 *db, object_desc *o)
{
    sqlite3_stmt *st = NULL;
    int rc = sqlite3_prepare_v2(db,
                                "SELECT name, type, \"notnull\", dflt_value, pk "
                                "FROM pragma_table_info(?1) ORDER BY cid",
                                -1, &st, NULL);
    size_t cap = 0;
    if (rc == SQLITE_OK) {
        sqlite3_bind_text(st, 1, o->name, -1, SQLITE_STATIC);
    }
    while (rc == SQLITE_OK && (rc = sqlite3_step(st)) == SQLITE_ROW) {
        rc = SQLITE_OK;
        if (o->n_cols == cap) {
            size_t ncap = cap ? cap * 2 : 8;
            column_desc *n = realloc(o->cols, ncap * sizeof *n);
            if (!n) {
                rc = SQLITE_NOMEM;
                break;
            }
            o->cols = n;
            cap = ncap;
        }
        const char *type = (const char *)sqlite3_column_text(st, 1);
        const char *dflt = (const char *)sqlite3_column_text(st, 3);
        int pk = sqlite3_column_int(st, 4);
        char key[48] = "";
        if (pk > 0) {
            snprintf(key, sizeof key, " PRIMARY KEY (column %d of it)", pk);
        }
        char decl[512];
        snprintf(decl, sizeof decl, "%s%s%s%s%s", type && type[0] ? type : "(no type)",
                 sqlite3_column_int(st, 2) ? " NOT NULL" : "", dflt ? " DEFAULT " : "",
                 dflt ? dflt : "", key);
        column_desc *c = &o->cols[o->n_cols];
        c->name = dup_text(sqlite3_column_text(st, 0));
        c->decl = dup_text((const unsigned char *)decl);
        o->n_cols++;
        if (!c->name || !c->decl) {
            rc = SQLITE_NOMEM;
        }
    }
    rc = rc == SQLITE_DONE ? SQLITE_OK : rc;
    sqlite3_finalize(st);
    return rc;
}

/* Describes db's main schema: every object of sqlite_schema, tables
 * first so that a refusal names a missing table before its indexes, and
 * user_version (the columns come from describe_columns). The migration names are read separately
 * (read_migrations), once the schema_migrations table is known to be
 * Paddock's. */
static pdk_error describe(sqlite3 *db, const char *path, schema_desc *d, char *err, size_t err_len)
{
    memset(d, 0, sizeof *d);
    sqlite3_stmt *st = NULL;
    int rc = sqlite3_prepare_v2(db,
                                "SELECT type, name, tbl_name, sql FROM main.sqlite_schema "
                                "ORDER BY type <> 'table', type, name",
                                -1, &st, NULL);
    size_t cap = 0;
    while (rc == SQLITE_OK && (rc = sqlite3_step(st)) == SQLITE_ROW) {
        rc = SQLITE_OK;
        if (d->n_objs == cap) {
            size_t ncap = cap ? cap * 2 : 16;
            object_desc *n = realloc(d->objs, ncap * sizeof *n);
            if (!n) {
                rc = SQLITE_NOMEM;
                break;
            }
            d->objs = n;
            cap = ncap;
        }
        object_desc *o = &d->objs[d->n_objs++];
        memset(o, 0, sizeof *o);
        o->type = dup_text(sqlite3_column_text(st, 0));
        o->name = dup_text(sqlite3_column_text(st, 1));
        o->tbl_name = dup_text(sqlite3_column_text(st, 2));
        o->sql = dup_text(sqlite3_column_text(st, 3));
        if (!o->type || !o->name || !o->tbl_name ||
            (!o->sql && sqlite3_column_type(st, 3) != SQLITE_NULL)) {
            rc = SQLITE_NOMEM;
        }
    }
    rc = rc == SQLITE_DONE ? SQLITE_OK : rc;
    sqlite3_finalize(st);
    if (rc != SQLITE_OK) {
        pdk_error e = sqlite_failure(db, rc, path, "reading its schema", err, err_len);
        desc_free(d);
        return e;
    }
    rc = sqlite3_prepare_v2(db, "PRAGMA main.user_version", -1, &st, NULL);
    if (rc == SQLITE_OK && (rc = sqlite3_step(st)) == SQLITE_ROW) {
        d->user_version = sqlite3_column_int64(st, 0);
        rc = SQLITE_OK;
    }
    sqlite3_finalize(st);
    if (rc != SQLITE_OK) {
        pdk_error e = sqlite_failure(db, rc, path, "reading its user_version", err, err_len);
        desc_free(d);
        return e;
    }
    return PDK_OK;
}

/* The columns of every table in d; called on a file's schema only once
 * every table in it is known to be one of Paddock's. */
static pdk_error describe_columns(sqlite3 *db, const char *path, schema_desc *d, char *err,
                                  size_t err_len)
{
    for (size_t i = 0; i < d->n_objs; i++) {
        if (strcmp(d->objs[i].type, "table") != 0) {
            continue;
        }
        int rc = read_columns(db, &d->objs[i]);
        if (rc != SQLITE_OK) {
            char doing[160];
            snprintf(doing, sizeof doing, "reading the columns of table \"%s\"",
                     show(d->objs[i].name).text);
            return sqlite_failure(db, rc, path, doing, err, err_len);
        }
    }
    return PDK_OK;
}

/* schema_migrations' names by version into d, after checking that the
 * versions run 1..n without a gap (as the runner writes them) and that n
 * is not newer than newest (0: any, for the reference itself). */
static pdk_error read_migrations(sqlite3 *db, const char *path, int newest, schema_desc *d,
                                 char *err, size_t err_len)
{
    int64_t count = 0, lowest = 0, highest = 0;
    sqlite3_stmt *st = NULL;
    int rc = sqlite3_prepare_v2(db,
                                "SELECT COUNT(*), COALESCE(MIN(version), 0), "
                                "COALESCE(MAX(version), 0) FROM main.schema_migrations",
                                -1, &st, NULL);
    if (rc == SQLITE_OK && (rc = sqlite3_step(st)) == SQLITE_ROW) {
        count = sqlite3_column_int64(st, 0);
        lowest = sqlite3_column_int64(st, 1);
        highest = sqlite3_column_int64(st, 2);
        rc = SQLITE_OK;
    }
    sqlite3_finalize(st);
    if (rc != SQLITE_OK) {
        return sqlite_failure(db, rc, path, "reading schema_migrations", err, err_len);
    }
    if (count == 0) {
        pdk_store_errf(err, err_len, "%s: import refused: schema_migrations holds no version",
                       path);
        return PDK_ERR_PARSE;
    }
    if (newest > 0 && highest > newest) {
        pdk_store_errf(err, err_len,
                       "%s: its schema version %lld is newer than this server's (%d); import it "
                       "with a newer paddockd",
                       path, (long long)highest, newest);
        return PDK_ERR_DB_TOO_NEW;
    }
    if (lowest != 1 || highest != count) {
        pdk_store_errf(err, err_len,
                       "%s: import refused: schema_migrations holds versions %lld..%lld in %lld "
                       "rows where Paddock's run 1, 2, ... without gaps",
                       path, (long long)lowest, (long long)highest, (long long)count);
        return PDK_ERR_PARSE;
    }
    d->migration_names = calloc((size_t)count, sizeof *d->migration_names);
    if (!d->migration_names) {
        pdk_store_errf(err, err_len, "%s: out of memory reading schema_migrations", path);
        return PDK_ERR_NO_MEMORY;
    }
    rc = sqlite3_prepare_v2(db, "SELECT name FROM main.schema_migrations ORDER BY version", -1, &st,
                            NULL);
    while (rc == SQLITE_OK && (rc = sqlite3_step(st)) == SQLITE_ROW) {
        rc = SQLITE_OK;
        if (d->n_migrations == (size_t)count) {
            break; /* rows appeared: the file is immutable, so never */
        }
        const unsigned char *name = sqlite3_column_text(st, 0);
        d->migration_names[d->n_migrations] = dup_text(name ? name : (const unsigned char *)"");
        if (!d->migration_names[d->n_migrations]) {
            rc = SQLITE_NOMEM;
            break;
        }
        d->n_migrations++;
    }
    rc = rc == SQLITE_DONE ? SQLITE_OK : rc;
    sqlite3_finalize(st);
    if (rc != SQLITE_OK) {
        return sqlite_failure(db, rc, path, "reading schema_migrations", err, err_len);
    }
    return PDK_OK;
}

/* ---- The reference ---- */

static pdk_error make_level(const pdk_migration_list *all, int level, schema_desc *out, char *err,
                            size_t err_len)
{
    sqlite3 *db = NULL;
    if (sqlite3_open_v2(":memory:", &db, SQLITE_OPEN_READWRITE | SQLITE_OPEN_CREATE, NULL) !=
        SQLITE_OK) {
        pdk_store_errf(err, err_len, "an in-memory database for the reference schema: %s",
                       db ? sqlite3_errmsg(db) : "out of memory");
        sqlite3_close(db);
        return PDK_ERR_NO_MEMORY;
    }
    pdk_migration_list first = {all->items, (size_t)level};
    int version = 0;
    pdk_error rc = pdk_migrations_apply(db, "the reference schema", &first, &version, err, err_len);
    char *e = NULL;
    if (rc == PDK_OK && sqlite3_exec(db, PDK_EXPORT_TABLE_SQL, NULL, NULL, &e) != SQLITE_OK) {
        pdk_store_errf(err, err_len, "the reference schema: creating paddock_export: %s",
                       e ? e : sqlite3_errmsg(db));
        rc = PDK_ERR_DB;
    }
    sqlite3_free(e);
    if (rc == PDK_OK) {
        rc = describe(db, "the reference schema", out, err, err_len);
    }
    if (rc == PDK_OK) {
        rc = describe_columns(db, "the reference schema", out, err, err_len);
        if (rc == PDK_OK) {
            rc = read_migrations(db, "the reference schema", 0, out, err, err_len);
        }
        if (rc != PDK_OK) {
            desc_free(out);
        }
    }
    sqlite3_close(db);
    return rc;
}

pdk_error pdk_import_schema_build(const pdk_migration_list *migrations, pdk_import_schema **out,
                                  char *err, size_t err_len)
{
    *out = NULL;
    pdk_import_schema *s = calloc(1, sizeof *s);
    schema_desc *levels = calloc(migrations->count ? migrations->count : 1, sizeof *levels);
    if (!s || !levels) {
        free(s);
        free(levels);
        pdk_store_errf(err, err_len, "the reference schema: out of memory");
        return PDK_ERR_NO_MEMORY;
    }
    s->levels = levels;
    for (size_t v = 1; v <= migrations->count; v++) {
        pdk_error rc = make_level(migrations, (int)v, &s->levels[v - 1], err, err_len);
        if (rc != PDK_OK) {
            pdk_import_schema_free(s);
            return rc;
        }
        s->newest = (int)v;
    }
    *out = s;
    return PDK_OK;
}

pdk_error pdk_import_schema_make(const char *migrations_dir, pdk_import_schema **out, char *err,
                                 size_t err_len)
{
    if (!migrations_dir || !out) {
        pdk_store_errf(err, err_len, "pdk_import_schema_make: %s is NULL",
                       !migrations_dir ? "migrations_dir" : "out");
        return PDK_ERR_INVALID_ARGUMENT;
    }
    *out = NULL;
    pdk_migration_list migrations;
    pdk_error rc = pdk_migrations_scan(migrations_dir, &migrations, err, err_len);
    if (rc == PDK_OK) {
        rc = pdk_import_schema_build(&migrations, out, err, err_len);
        pdk_migrations_free(&migrations);
    }
    return rc;
}

void pdk_import_schema_free(pdk_import_schema *schema)
{
    if (!schema) {
        return;
    }
    for (int v = 0; v < schema->newest; v++) {
        desc_free(&schema->levels[v]);
    }
    free(schema->levels);
    free(schema);
}

int pdk_import_schema_newest(const pdk_import_schema *schema)
{
    return schema ? schema->newest : 0;
}

/* ---- The check ---- */

static const object_desc *find_object(const schema_desc *d, const char *type, const char *name)
{
    for (size_t i = 0; i < d->n_objs; i++) {
        if (strcmp(d->objs[i].type, type) == 0 && strcmp(d->objs[i].name, name) == 0) {
            return &d->objs[i];
        }
    }
    return NULL;
}

static const column_desc *find_column(const object_desc *o, const char *name)
{
    for (size_t i = 0; i < o->n_cols; i++) {
        if (strcmp(o->cols[i].name, name) == 0) {
            return &o->cols[i];
        }
    }
    return NULL;
}

static int same_text(const char *a, const char *b)
{
    return (!a && !b) || (a && b && strcmp(a, b) == 0);
}

/* The file's schema d against Paddock's ref at the same migration level:
 * every difference is a refusal naming the first one found. Names from the
 * file are cut short in messages (they are the sender's words). */
static pdk_error unexpected_objects(const schema_desc *d, const schema_desc *ref, int level,
                                    const char *path, char *err, size_t err_len)
{
    for (size_t i = 0; i < d->n_objs; i++) {
        const object_desc *o = &d->objs[i];
        if (!find_object(ref, o->type, o->name)) {
            pdk_store_errf(err, err_len,
                           "%s: import refused: %s \"%s\" is not in Paddock's schema "
                           "(migration %d)%s",
                           path, show(o->type).text, show(o->name).text, level,
                           strcmp(o->type, "trigger") == 0 || strcmp(o->type, "view") == 0
                               ? "; an export has no triggers or views"
                               : "");
            return PDK_ERR_PARSE;
        }
    }
    return PDK_OK;
}

/* Then, every object of Paddock's is there, with the same columns and the
 * same definition, and user_version is Paddock's. */
static pdk_error compare(const schema_desc *d, const schema_desc *ref, int level, const char *path,
                         char *err, size_t err_len)
{
    for (size_t i = 0; i < ref->n_objs; i++) {
        const object_desc *r = &ref->objs[i];
        const object_desc *o = find_object(d, r->type, r->name);
        if (!o) {
            if (strcmp(r->type, "table") == 0) {
                pdk_store_errf(err, err_len,
                               "%s: import refused: not a Paddock session export: no %s table "
                               "(Paddock's schema at migration %d has one)",
                               path, r->name, level);
            } else {
                pdk_store_errf(err, err_len,
                               "%s: import refused: it has no %s \"%s\" (Paddock's schema at "
                               "migration %d has one)",
                               path, r->type, r->name, level);
            }
            return PDK_ERR_PARSE;
        }
        for (size_t c = 0; c < o->n_cols; c++) {
            const column_desc *rc = find_column(r, o->cols[c].name);
            if (!rc) {
                pdk_store_errf(err, err_len,
                               "%s: import refused: table %s has an unexpected column \"%s\"", path,
                               r->name, show(o->cols[c].name).text);
                return PDK_ERR_PARSE;
            }
            if (strcmp(rc->decl, o->cols[c].decl) != 0) {
                pdk_store_errf(err, err_len,
                               "%s: import refused: column %s.%s is \"%s\" where Paddock's is "
                               "\"%s\"",
                               path, r->name, rc->name, show(o->cols[c].decl).text, rc->decl);
                return PDK_ERR_PARSE;
            }
        }
        for (size_t c = 0; c < r->n_cols; c++) {
            if (!find_column(o, r->cols[c].name)) {
                pdk_store_errf(err, err_len, "%s: import refused: table %s has no column %s", path,
                               r->name, r->cols[c].name);
                return PDK_ERR_PARSE;
            }
        }
        if (!same_text(o->tbl_name, r->tbl_name) || !same_text(o->sql, r->sql)) {
            pdk_store_errf(err, err_len,
                           "%s: import refused: the definition of %s %s differs from what "
                           "Paddock's migrations make",
                           path, r->type, r->name);
            return PDK_ERR_PARSE;
        }
    }
    if (d->user_version != ref->user_version) {
        pdk_store_errf(err, err_len,
                       "%s: import refused: its user_version is %lld where Paddock's is %lld", path,
                       (long long)d->user_version, (long long)ref->user_version);
        return PDK_ERR_PARSE;
    }
    return PDK_OK;
}

/* PDK_OK when the file starts with SQLite's 16-byte header. */
static pdk_error check_header(const char *path, char *err, size_t err_len)
{
    static const char magic[16] = "SQLite format 3";
    FILE *f = fopen(path, "rb");
    if (!f) {
        pdk_store_errf(err, err_len, "%s: cannot read: %s", path, strerror(errno));
        return PDK_ERR_IO;
    }
    char head[16];
    size_t got = fread(head, 1, sizeof head, f);
    int bad = ferror(f);
    fclose(f);
    if (bad) {
        pdk_store_errf(err, err_len, "%s: cannot read: %s", path, strerror(errno));
        return PDK_ERR_IO;
    }
    if (got < sizeof head || memcmp(head, magic, sizeof magic) != 0) {
        pdk_store_errf(err, err_len, "%s: import refused: not an SQLite file", path);
        return PDK_ERR_PARSE;
    }
    return PDK_OK;
}

/* One integer from sql; SQLITE_DONE when there is no row. */
static int query_int(sqlite3 *db, const char *sql, int64_t *out)
{
    sqlite3_stmt *st = NULL;
    int rc = sqlite3_prepare_v2(db, sql, -1, &st, NULL);
    if (rc == SQLITE_OK) {
        rc = sqlite3_step(st);
        if (rc == SQLITE_ROW) {
            *out = sqlite3_column_int64(st, 0);
            rc = SQLITE_OK;
        }
    }
    sqlite3_finalize(st);
    return rc;
}

/* quick_check: every page, cell and record of the file is well formed and
 * every NOT NULL holds. It does not compare indexes with their tables as
 * integrity_check does (which sorts every index, O(N log N) on a file of up
 * to the upload limit); the import never reads the file through an index
 * (store_export.c copies with NOT INDEXED), so an index that disagrees with
 * its table cannot change what is imported. */
static pdk_error quick_check(sqlite3 *db, const char *path, char *err, size_t err_len)
{
    sqlite3_stmt *st = NULL;
    int rc = sqlite3_prepare_v2(db, "PRAGMA main.quick_check(1)", -1, &st, NULL);
    if (rc == SQLITE_OK) {
        rc = sqlite3_step(st);
    }
    pdk_error e = PDK_OK;
    if (rc == SQLITE_ROW) {
        const char *verdict = (const char *)sqlite3_column_text(st, 0);
        if (!verdict || strcmp(verdict, "ok") != 0) {
            pdk_store_errf(err, err_len, "%s: import refused: damaged SQLite file: %s", path,
                           show(verdict ? verdict : "?").text);
            e = PDK_ERR_PARSE;
        }
    } else {
        e = sqlite_failure(db, rc, path, "checking its pages", err, err_len);
    }
    sqlite3_finalize(st);
    return e;
}

/* The export's own rows: one paddock_export row of a format this server
 * reads, naming the one session the file holds. */
static pdk_error check_rows(sqlite3 *db, const char *path, uint64_t *original_id, char *err,
                            size_t err_len)
{
    int64_t n = 0;
    int rc = query_int(db, "SELECT COUNT(*) FROM paddock_export", &n);
    if (rc != SQLITE_OK) {
        return sqlite_failure(db, rc, path, "reading paddock_export", err, err_len);
    }
    if (n != 1) {
        pdk_store_errf(err, err_len,
                       "%s: import refused: paddock_export holds %lld rows, an export holds one",
                       path, (long long)n);
        return PDK_ERR_PARSE;
    }
    int64_t format = 0;
    int64_t orig = 0;
    rc = query_int(db, "SELECT format FROM paddock_export", &format);
    if (rc == SQLITE_OK) {
        rc = query_int(db, "SELECT original_session_id FROM paddock_export", &orig);
    }
    if (rc != SQLITE_OK) {
        return sqlite_failure(db, rc, path, "reading paddock_export", err, err_len);
    }
    if (format > PDK_EXPORT_FORMAT) {
        pdk_store_errf(err, err_len,
                       "%s: export format %lld is newer than this server reads (%d); use a "
                       "newer paddockd",
                       path, (long long)format, PDK_EXPORT_FORMAT);
        return PDK_ERR_DB_TOO_NEW;
    }
    if (format != PDK_EXPORT_FORMAT) {
        pdk_store_errf(err, err_len,
                       "%s: import refused: unknown export format %lld (this server reads %d)",
                       path, (long long)format, PDK_EXPORT_FORMAT);
        return PDK_ERR_PARSE;
    }
    rc = query_int(db, "SELECT COUNT(*) FROM sessions", &n);
    if (rc != SQLITE_OK) {
        return sqlite_failure(db, rc, path, "reading sessions", err, err_len);
    }
    if (n != 1) {
        pdk_store_errf(err, err_len,
                       "%s: import refused: it holds %lld sessions, an export holds exactly one",
                       path, (long long)n);
        return PDK_ERR_PARSE;
    }
    int64_t sid = 0;
    rc = query_int(db, "SELECT session_id FROM sessions", &sid);
    if (rc != SQLITE_OK) {
        return sqlite_failure(db, rc, path, "reading sessions", err, err_len);
    }
    if (sid != orig) {
        pdk_store_errf(err, err_len,
                       "%s: import refused: its session is %llu but paddock_export names session "
                       "%llu",
                       path, (unsigned long long)pdk_store_i64_to_u64(sid),
                       (unsigned long long)pdk_store_i64_to_u64(orig));
        return PDK_ERR_PARSE;
    }
    *original_id = pdk_store_i64_to_u64(orig);
    return PDK_OK;
}

/* The migration level the file claims, read once its schema_migrations
 * table is exactly Paddock's (the same at every level). */
static pdk_error file_level(sqlite3 *db, const pdk_import_schema *ref, schema_desc *d,
                            const char *path, int *level, char *err, size_t err_len)
{
    const object_desc *mine = find_object(d, "table", "schema_migrations");
    const object_desc *theirs = find_object(&ref->levels[0], "table", "schema_migrations");
    if (!mine) {
        pdk_store_errf(err, err_len,
                       "%s: import refused: not a Paddock session export: no schema_migrations "
                       "table",
                       path);
        return PDK_ERR_PARSE;
    }
    if (!theirs || !same_text(mine->sql, theirs->sql)) {
        pdk_store_errf(err, err_len,
                       "%s: import refused: its schema_migrations table is not Paddock's", path);
        return PDK_ERR_PARSE;
    }
    pdk_error rc = read_migrations(db, path, ref->newest, d, err, err_len);
    if (rc != PDK_OK) {
        return rc;
    }
    size_t n = d->n_migrations;
    const schema_desc *at = &ref->levels[n - 1];
    for (size_t v = 0; v < n; v++) {
        if (strcmp(d->migration_names[v], at->migration_names[v]) != 0) {
            pdk_store_errf(err, err_len,
                           "%s: import refused: its migration %zu is \"%s\" where Paddock's "
                           "is \"%s\"",
                           path, v + 1, show(d->migration_names[v]).text, at->migration_names[v]);
            return PDK_ERR_PARSE;
        }
    }
    *level = (int)n;
    return PDK_OK;
}

pdk_error pdk_import_check(const pdk_import_schema *schema, const char *path, pdk_import_facts *out,
                           char *err, size_t err_len)
{
    pdk_store_errf(err, err_len, "%s", "");
    if (!schema || !path || !out) {
        pdk_store_errf(err, err_len, "pdk_import_check: %s is NULL",
                       !schema ? "schema"
                       : !path ? "path"
                               : "out");
        return PDK_ERR_INVALID_ARGUMENT;
    }
    memset(out, 0, sizeof *out);
    pdk_error rc = check_header(path, err, err_len);
    if (rc != PDK_OK) {
        return rc;
    }
    char *uri = pdk_store_file_uri(path, "mode=ro&immutable=1");
    if (!uri) {
        pdk_store_errf(err, err_len, "%s: out of memory", path);
        return PDK_ERR_NO_MEMORY;
    }
    sqlite3 *db = NULL;
    int src = sqlite3_open_v2(uri, &db,
                              SQLITE_OPEN_READONLY | SQLITE_OPEN_URI | SQLITE_OPEN_NOMUTEX, NULL);
    free(uri);
    if (src != SQLITE_OK) {
        rc = sqlite_failure(db, src, path, "opening it", err, err_len);
        sqlite3_close(db);
        return rc;
    }
    sqlite3_extended_result_codes(db, 1);
    src = pdk_store_harden(db, 0, 1);
    if (src != SQLITE_OK) {
        rc = sqlite_failure(db, src, path, "hardening its connection", err, err_len);
        sqlite3_close(db);
        return rc;
    }
    schema_desc d;
    rc = describe(db, path, &d, err, err_len);
    int level = 0;
    if (rc == PDK_OK) {
        rc = file_level(db, schema, &d, path, &level, err, err_len);
    }
    if (rc == PDK_OK) {
        rc = unexpected_objects(&d, &schema->levels[level - 1], level, path, err, err_len);
    }
    if (rc == PDK_OK) {
        rc = describe_columns(db, path, &d, err, err_len);
    }
    if (rc == PDK_OK) {
        rc = compare(&d, &schema->levels[level - 1], level, path, err, err_len);
    }
    if (rc == PDK_OK) {
        rc = quick_check(db, path, err, err_len);
    }
    if (rc == PDK_OK) {
        rc = check_rows(db, path, &out->original_session_id, err, err_len);
    }
    if (rc == PDK_OK) {
        out->schema_version = level;
    } else {
        out->original_session_id = 0;
    }
    desc_free(&d);
    sqlite3_close(db);
    return rc;
}
