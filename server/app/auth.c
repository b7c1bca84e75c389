/* The --auth file of API keys and the role decisions made from it. Keys are
 * kept only as SHA-256 digests, so the file (and a core dump) never holds a
 * usable key; a presented key is hashed and compared with every digest in
 * constant time. */
#include "auth.h"

#include "transport.h"

#include <fnmatch.h>
#include <jansson.h>
#include <openssl/crypto.h>
#include <openssl/evp.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

struct pdk_auth {
    pdk_identity *ids;
    size_t n;
};

static const struct {
    const char *name;
    pdk_role role;
} role_names[] = {
    {"admin", PDK_ROLE_ADMIN},       {"operator", PDK_ROLE_OPERATOR}, {"driver", PDK_ROLE_DRIVER},
    {"autonomy", PDK_ROLE_AUTONOMY}, {"viewer", PDK_ROLE_VIEWER},
};

const char *pdk_auth_role_name(pdk_role role)
{
    for (size_t i = 0; i < sizeof(role_names) / sizeof(role_names[0]); i++)
        if (role_names[i].role == role)
            return role_names[i].name;
    return "none";
}

void pdk_auth_sha256(const void *data, size_t len, uint8_t digest[32])
{
    unsigned int n = 32;
    int ok = EVP_Digest(data, len, digest, &n, EVP_sha256(), NULL);
    PDK_ASSERT(ok == 1 && n == 32);
}

static int hex_value(char ch)
{
    if (ch >= '0' && ch <= '9')
        return ch - '0';
    if (ch >= 'a' && ch <= 'f')
        return ch - 'a' + 10;
    if (ch >= 'A' && ch <= 'F')
        return ch - 'A' + 10;
    return -1;
}

static bool parse_digest(const char *hex, uint8_t out[32])
{
    if (strlen(hex) != 64)
        return false;
    for (size_t i = 0; i < 32; i++) {
        int hi = hex_value(hex[2 * i]);
        int lo = hex_value(hex[2 * i + 1]);
        if (hi < 0 || lo < 0)
            return false;
        out[i] = (uint8_t)(hi * 16 + lo);
    }
    return true;
}

/* A name or pattern: 1..63 printable ASCII bytes. */
static bool printable_name(const char *s)
{
    size_t n = strlen(s);
    if (n == 0 || n >= PDK_AUTH_NAME_LEN)
        return false;
    for (size_t i = 0; i < n; i++)
        if (s[i] < 0x20 || s[i] > 0x7e)
            return false;
    return true;
}

/* One entry of "keys": into id, or an error naming keys[i] and the field. */
static pdk_error load_key(const char *path, size_t i, json_t *k, pdk_identity *id, char *err,
                          size_t err_len)
{
    char where[PDK_AUTH_NAME_LEN + 48];
    snprintf(where, sizeof(where), "%s: keys[%zu]", path, i);
    if (!json_is_object(k)) {
        snprintf(err, err_len, "%s: must be an object with name, role and sha256", where);
        return PDK_ERR_WRONG_TYPE;
    }
    const char *field;
    json_t *v;
    json_object_foreach(k, field, v)
    {
        if (strcmp(field, "name") != 0 && strcmp(field, "role") != 0 &&
            strcmp(field, "sha256") != 0 && strcmp(field, "sessions") != 0) {
            snprintf(err, err_len,
                     "%s: unknown field '%.64s' (a key has name, role, sha256 and optionally "
                     "sessions)",
                     where, field);
            return PDK_ERR_UNKNOWN_KEY;
        }
    }
    json_t *name = json_object_get(k, "name");
    if (!json_is_string(name) || !printable_name(json_string_value(name))) {
        snprintf(err, err_len, "%s: name must be 1 to %d printable ASCII characters", where,
                 PDK_AUTH_NAME_LEN - 1);
        return name && !json_is_string(name) ? PDK_ERR_WRONG_TYPE : PDK_ERR_INVALID_ARGUMENT;
    }
    snprintf(id->name, sizeof(id->name), "%s", json_string_value(name));
    snprintf(where, sizeof(where), "%s: keys[%zu] (\"%s\")", path, i, id->name);
    json_t *role = json_object_get(k, "role");
    id->role = PDK_ROLE_NONE;
    if (json_is_string(role))
        for (size_t r = 0; r < sizeof(role_names) / sizeof(role_names[0]); r++)
            if (strcmp(json_string_value(role), role_names[r].name) == 0)
                id->role = role_names[r].role;
    if (id->role == PDK_ROLE_NONE) {
        snprintf(err, err_len,
                 "%s: role: %s%.32s%s is not one of admin, operator, driver, "
                 "autonomy, viewer",
                 where, json_is_string(role) ? "'" : "",
                 json_is_string(role) ? json_string_value(role)
                 : role               ? "a non-string"
                                      : "missing",
                 json_is_string(role) ? "'" : "");
        return PDK_ERR_INVALID_ARGUMENT;
    }
    json_t *digest = json_object_get(k, "sha256");
    if (!json_is_string(digest) || !parse_digest(json_string_value(digest), id->key_sha256)) {
        snprintf(err, err_len,
                 "%s: sha256 must be the key's SHA-256 as 64 hex digits (printf %%s KEY | "
                 "sha256sum)",
                 where);
        return PDK_ERR_INVALID_ARGUMENT;
    }
    json_t *sessions = json_object_get(k, "sessions");
    if (sessions) {
        if (!json_is_array(sessions) || json_array_size(sessions) == 0 ||
            json_array_size(sessions) > PDK_AUTH_MAX_PATTERNS) {
            snprintf(err, err_len, "%s: sessions must be a list of 1 to %d session-name patterns",
                     where, PDK_AUTH_MAX_PATTERNS);
            return PDK_ERR_WRONG_TYPE;
        }
        size_t j;
        json_t *p;
        json_array_foreach(sessions, j, p)
        {
            if (!json_is_string(p) || !printable_name(json_string_value(p))) {
                snprintf(err, err_len,
                         "%s: sessions[%zu] must be a pattern of 1 to %d printable ASCII "
                         "characters",
                         where, j, PDK_AUTH_NAME_LEN - 1);
                return PDK_ERR_INVALID_ARGUMENT;
            }
            snprintf(id->patterns[j], sizeof(id->patterns[j]), "%s", json_string_value(p));
        }
        id->n_patterns = (int)json_array_size(sessions);
    }
    return PDK_OK;
}

pdk_error pdk_auth_load(const char *path, pdk_auth **out, char *err, size_t err_len)
{
    *out = NULL;
    FILE *f = fopen(path, "rb");
    if (!f) {
        snprintf(err, err_len, "%s: cannot be read", path);
        return PDK_ERR_IO;
    }
    json_error_t je;
    json_t *root = json_loadf(f, JSON_REJECT_DUPLICATES, &je);
    fclose(f);
    if (!root) {
        snprintf(err, err_len, "%s: line %d, column %d: %s", path, je.line, je.column, je.text);
        return PDK_ERR_PARSE;
    }
    pdk_error e = PDK_OK;
    pdk_auth *a = calloc(1, sizeof(*a));
    json_t *keys = json_object_get(root, "keys");
    if (!a) {
        snprintf(err, err_len, "out of memory");
        e = PDK_ERR_NO_MEMORY;
    } else if (!json_is_object(root) || json_object_size(root) != 1 || !json_is_array(keys) ||
               json_array_size(keys) == 0) {
        snprintf(err, err_len, "%s: must be {\"keys\": [...]} with at least one key", path);
        e = PDK_ERR_WRONG_TYPE;
    } else if (!(a->ids = calloc(json_array_size(keys), sizeof(*a->ids)))) {
        snprintf(err, err_len, "out of memory");
        e = PDK_ERR_NO_MEMORY;
    }
    for (size_t i = 0; e == PDK_OK && i < json_array_size(keys); i++) {
        pdk_identity *id = &a->ids[i];
        e = load_key(path, i, json_array_get(keys, i), id, err, err_len);
        for (size_t j = 0; e == PDK_OK && j < i; j++) {
            if (strcmp(a->ids[j].name, id->name) == 0) {
                snprintf(err, err_len, "%s: keys[%zu]: name \"%s\" is also keys[%zu]'s", path, i,
                         id->name, j);
                e = PDK_ERR_INVALID_ARGUMENT;
            } else if (memcmp(a->ids[j].key_sha256, id->key_sha256, 32) == 0) {
                snprintf(err, err_len, "%s: keys[%zu] (\"%s\"): sha256 is also keys[%zu]'s", path,
                         i, id->name, j);
                e = PDK_ERR_INVALID_ARGUMENT;
            }
        }
        a->n = i + 1;
    }
    json_decref(root);
    if (e != PDK_OK) {
        pdk_auth_free(a);
        return e;
    }
    *out = a;
    return PDK_OK;
}

void pdk_auth_free(pdk_auth *auth)
{
    if (!auth)
        return;
    free(auth->ids);
    free(auth);
}

size_t pdk_auth_count(const pdk_auth *auth)
{
    return auth ? auth->n : 0;
}

const pdk_identity *pdk_auth_find(const pdk_auth *auth, const char *api_key)
{
    if (!auth || !api_key || !*api_key || strlen(api_key) > PDK_AUTH_MAX_KEY_BYTES)
        return NULL;
    uint8_t digest[32];
    pdk_auth_sha256(api_key, strlen(api_key), digest);
    const pdk_identity *found = NULL;
    for (size_t i = 0; i < auth->n; i++)
        if (CRYPTO_memcmp(digest, auth->ids[i].key_sha256, 32) == 0)
            found = &auth->ids[i];
    return found;
}

const pdk_identity *pdk_auth_local(void)
{
    static const pdk_identity local = {.name = "local", .role = PDK_ROLE_ADMIN};
    return &local;
}

static int role_rank(pdk_role role)
{
    switch (role) {
    case PDK_ROLE_ADMIN:
        return 4;
    case PDK_ROLE_OPERATOR:
        return 3;
    case PDK_ROLE_DRIVER:
    case PDK_ROLE_AUTONOMY:
        return 2;
    case PDK_ROLE_VIEWER:
        return 1;
    case PDK_ROLE_NONE:
        break;
    }
    return 0;
}

pdk_role pdk_auth_role_min(pdk_role a, pdk_role b)
{
    return role_rank(a) < role_rank(b) ? a : b;
}

bool pdk_auth_role_changes(pdk_role role)
{
    return role_rank(role) >= 2;
}

pdk_role pdk_auth_role_on(const pdk_identity *who, const char *session_name, const char *owner,
                          pdk_role granted)
{
    if (owner && *owner && strcmp(owner, who->name) == 0)
        return who->role;
    bool in_scope = false;
    if (who->n_patterns > 0) {
        for (int i = 0; i < who->n_patterns && session_name && *session_name; i++)
            if (fnmatch(who->patterns[i], session_name, 0) == 0)
                in_scope = true;
    } else {
        in_scope = who->role == PDK_ROLE_ADMIN || who->role == PDK_ROLE_OPERATOR;
    }
    if (in_scope)
        return who->role;
    return granted == PDK_ROLE_NONE ? PDK_ROLE_NONE : pdk_auth_role_min(who->role, granted);
}

bool pdk_auth_loopback(const char *addr)
{
    char host[128];
    const char *colon = strrchr(addr, ':');
    size_t n = colon ? (size_t)(colon - addr) : strlen(addr);
    if (n >= sizeof(host))
        return false;
    memcpy(host, addr, n);
    host[n] = '\0';
    if (host[0] == '[' && n >= 2 && host[n - 1] == ']') {
        memmove(host, host + 1, n - 2);
        host[n - 2] = '\0';
    }
    return strcmp(host, "localhost") == 0 || pdk_net_host_is_loopback(host);
}
