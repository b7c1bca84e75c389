/* The configuration file's lines into flags (config_file.h). */
#include "config_file.h"

#include <errno.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define FILE_MAX_BYTES (1u << 20)
#define LINE_MAX_BYTES 4096

static char *trim(char *s)
{
    while (*s == ' ' || *s == '\t')
        s++;
    size_t n = strlen(s);
    while (n > 0 && (s[n - 1] == ' ' || s[n - 1] == '\t' || s[n - 1] == '\r'))
        s[--n] = '\0';
    return s;
}

/* true and false as a switch says them; -1 for anything else. */
static int truth(const char *v)
{
    static const char *const yes[] = {"true", "yes", "on", "1"};
    static const char *const no[] = {"false", "no", "off", "0"};
    for (size_t i = 0; i < 4; i++) {
        if (strcmp(v, yes[i]) == 0)
            return 1;
        if (strcmp(v, no[i]) == 0)
            return 0;
    }
    return -1;
}

static bool push(pdk_config_args *a, size_t *cap, char *s)
{
    if ((size_t)a->argc + 1 >= *cap) {
        size_t c = *cap ? *cap * 2 : 32;
        char **p = realloc(a->argv, c * sizeof *p);
        if (!p)
            return false;
        a->argv = p;
        *cap = c;
    }
    a->argv[a->argc++] = s;
    a->argv[a->argc] = NULL;
    return true;
}

void pdk_config_args_free(pdk_config_args *args)
{
    if (!args)
        return;
    for (int i = 0; i < args->argc; i++)
        free(args->argv[i]);
    free(args->argv);
    free(args->text);
    memset(args, 0, sizeof *args);
}

pdk_error pdk_config_file_read(const char *path, const pdk_config_option *known, size_t n,
                               pdk_config_args *out, char *err, size_t err_len)
{
    memset(out, 0, sizeof *out);
    FILE *f = fopen(path, "rb");
    if (!f) {
        snprintf(err, err_len, "%s: %s", path, strerror(errno));
        return PDK_ERR_IO;
    }
    char *text = malloc(FILE_MAX_BYTES + 1);
    if (!text) {
        fclose(f);
        snprintf(err, err_len, "%s: out of memory", path);
        return PDK_ERR_NO_MEMORY;
    }
    size_t len = fread(text, 1, FILE_MAX_BYTES + 1, f);
    bool failed = ferror(f);
    fclose(f);
    if (failed || len > FILE_MAX_BYTES) {
        free(text);
        snprintf(err, err_len, "%s: %s", path,
                 failed ? "cannot be read" : "larger than 1 MiB: not a configuration file");
        return failed ? PDK_ERR_IO : PDK_ERR_PARSE;
    }
    text[len] = '\0';
    out->text = text;
    if (memchr(text, '\0', len)) {
        pdk_config_args_free(out);
        snprintf(err, err_len, "%s: holds a NUL byte: not a text file", path);
        return PDK_ERR_PARSE;
    }
    size_t cap = 0;
    int *seen = calloc(n ? n : 1, sizeof *seen); /* the line each option was given on */
    if (!seen) {
        pdk_config_args_free(out);
        snprintf(err, err_len, "%s: out of memory", path);
        return PDK_ERR_NO_MEMORY;
    }
    pdk_error e = PDK_OK;
    int line_no = 0;
    for (char *line = text; line && e == PDK_OK;) {
        char *next = strchr(line, '\n');
        if (next)
            *next++ = '\0';
        line_no++;
        if (strlen(line) > LINE_MAX_BYTES) {
            snprintf(err, err_len, "%s:%d: a line longer than %d bytes", path, line_no,
                     LINE_MAX_BYTES);
            e = PDK_ERR_PARSE;
            break;
        }
        char *s = trim(line);
        line = next;
        if (*s == '\0' || *s == '#')
            continue;
        char *eq = strchr(s, '=');
        if (!eq) {
            snprintf(err, err_len, "%s:%d: '%.64s' is not 'name = value'", path, line_no, s);
            e = PDK_ERR_PARSE;
            break;
        }
        *eq = '\0';
        char *name = trim(s), *value = trim(eq + 1);
        size_t k = 0;
        while (k < n && strcmp(known[k].name, name) != 0)
            k++;
        if (k == n) {
            snprintf(err, err_len,
                     "%s:%d: unknown option '%.64s' (the names are serve's flags without their "
                     "dashes: paddockd --help)",
                     path, line_no, name);
            e = PDK_ERR_PARSE;
            break;
        }
        if (seen[k]) {
            snprintf(err, err_len, "%s:%d: '%s' is given again (first on line %d)", path, line_no,
                     name, seen[k]);
            e = PDK_ERR_PARSE;
            break;
        }
        seen[k] = line_no;
        int t = truth(value);
        if (known[k].kind == PDK_CONFIG_SWITCH && t < 0) {
            snprintf(err, err_len, "%s:%d: '%s' is a switch: true or false, not '%.64s'", path,
                     line_no, name, value);
            e = PDK_ERR_PARSE;
            break;
        }
        if (known[k].kind == PDK_CONFIG_VALUE && *value == '\0') {
            snprintf(err, err_len, "%s:%d: '%s' has no value", path, line_no, name);
            e = PDK_ERR_PARSE;
            break;
        }
        if (known[k].kind != PDK_CONFIG_VALUE && t == 0)
            continue; /* a switch turned off: no flag */
        char *flag = malloc(strlen(name) + 3);
        if (!flag || !push(out, &cap, flag)) {
            free(flag);
            snprintf(err, err_len, "%s: out of memory", path);
            e = PDK_ERR_NO_MEMORY;
            break;
        }
        snprintf(flag, strlen(name) + 3, "--%s", name);
        bool with_value = known[k].kind == PDK_CONFIG_VALUE ||
                          (known[k].kind == PDK_CONFIG_OPTIONAL && t < 0);
        char *copy = with_value ? strdup(value) : NULL;
        if (with_value && (!copy || !push(out, &cap, copy))) {
            free(copy);
            snprintf(err, err_len, "%s: out of memory", path);
            e = PDK_ERR_NO_MEMORY;
        }
    }
    free(seen);
    if (e != PDK_OK)
        pdk_config_args_free(out);
    return e;
}
