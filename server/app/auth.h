/* Identities and roles (docs/security.md "Identities and roles"): the
 * --auth file of API keys, finding the identity a key belongs to, and what
 * role an identity has on a session. Pure decisions: the server keeps the
 * owners and join tokens (server_access.c) and asks here. */
#ifndef PDK_AUTH_H
#define PDK_AUTH_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "sim/error.h"

#define PDK_AUTH_NAME_LEN 64     /* a key's name, as messages and owners show it */
#define PDK_AUTH_MAX_PATTERNS 16 /* session-name patterns of one key */
#define PDK_AUTH_MAX_KEY_BYTES 256

/* Numbered as paddock.v1.Role. */
typedef enum pdk_role {
    PDK_ROLE_NONE = 0,
    PDK_ROLE_ADMIN = 1,
    PDK_ROLE_OPERATOR = 2,
    PDK_ROLE_DRIVER = 3,
    PDK_ROLE_AUTONOMY = 4,
    PDK_ROLE_VIEWER = 5,
} pdk_role;

/* One key of the --auth file. A key with session patterns acts only on
 * sessions it owns, sessions whose name matches one of them (fnmatch(3)
 * globs) and sessions shared with its connection; one without acts on every
 * session when its role is admin or operator, else on its own and shared
 * ones only. */
typedef struct pdk_identity {
    char name[PDK_AUTH_NAME_LEN];
    pdk_role role;
    uint8_t key_sha256[32];
    int n_patterns;
    char patterns[PDK_AUTH_MAX_PATTERNS][PDK_AUTH_NAME_LEN];
} pdk_identity;

typedef struct pdk_auth pdk_auth;

/* Loads path: {"keys": [{"name", "role", "sha256", "sessions"?}, ...]}.
 * Errors: PDK_ERR_IO (unreadable), PDK_ERR_PARSE (not JSON: err has the
 * line and column), PDK_ERR_INVALID_ARGUMENT, PDK_ERR_UNKNOWN_KEY and
 * PDK_ERR_WRONG_TYPE naming keys[i], its name and the field. *out is the
 * caller's to free with pdk_auth_free. */
pdk_error pdk_auth_load(const char *path, pdk_auth **out, char *err, size_t err_len);
void pdk_auth_free(pdk_auth *auth);
size_t pdk_auth_count(const pdk_auth *auth);

/* The identity whose key is api_key, or NULL. Every key's hash is compared
 * in constant time, so the time taken does not say which bytes matched. */
const pdk_identity *pdk_auth_find(const pdk_auth *auth, const char *api_key);

/* The identity every client is without --auth: "local", admin. */
const pdk_identity *pdk_auth_local(void);

/* SHA-256 of len bytes of data into digest. */
void pdk_auth_sha256(const void *data, size_t len, uint8_t digest[32]);

/* The role who has on a session named session_name owned by owner ("" when
 * not known: a recording made before this process started, or imported),
 * given the role a join token granted this connection on it (PDK_ROLE_NONE
 * when none). A grant never lifts a connection above its key's own role.
 * PDK_ROLE_NONE: no access at all. */
pdk_role pdk_auth_role_on(const pdk_identity *who, const char *session_name, const char *owner,
                          pdk_role granted);

/* A role that changes sessions (any but viewer and none). */
bool pdk_auth_role_changes(pdk_role role);
/* The lower of two roles (admin > operator > driver = autonomy > viewer >
 * none; of driver and autonomy, b). */
pdk_role pdk_auth_role_min(pdk_role a, pdk_role b);
/* "admin", "operator", "driver", "autonomy", "viewer"; "none". */
const char *pdk_auth_role_name(pdk_role role);
/* True when addr ("HOST:PORT", "[V6]:PORT") is a loopback address:
 * 127.0.0.0/8, ::1 or "localhost". */
bool pdk_auth_loopback(const char *addr);

#endif
