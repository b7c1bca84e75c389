/* config_file: paddockd serve's configuration file (--config FILE;
 * docs/paddockd.md "Configuration file"). One option a line,
 *
 *     name = value
 *
 * the names those of serve's flags without their dashes, a switch's value
 * true or false, '#' starting a comment line; blank lines are ignored and
 * a value is the rest of its line, spaces at its ends trimmed. The file
 * becomes the flags it spells, which main.c places before the command
 * line's, so a flag given there overrides the file. The values are checked
 * by the flags' own parsing, which names the flag and the value; this
 * module refuses what is wrong with the file itself, naming its path and
 * line: an unknown name, a line without '=', a switch that is not true or
 * false, a value missing, an option given twice. */
#ifndef PDK_CONFIG_FILE_H
#define PDK_CONFIG_FILE_H

#include <stddef.h>

#include "sim/error.h"

typedef enum pdk_config_kind {
    PDK_CONFIG_VALUE,    /* --name VALUE */
    PDK_CONFIG_SWITCH,   /* --name, for true */
    PDK_CONFIG_OPTIONAL, /* --name for true, --name VALUE otherwise (--demo) */
} pdk_config_kind;

typedef struct pdk_config_option {
    const char *name; /* "max-sessions" */
    pdk_config_kind kind;
} pdk_config_option;

/* The flags a file spells, each string the args' own, argv NULL-terminated;
 * free with pdk_config_args_free. */
typedef struct pdk_config_args {
    char **argv;
    int argc;
    char *text; /* the file's text */
} pdk_config_args;

/* Reads path against the n known options into out. PDK_ERR_IO (cannot be
 * read), PDK_ERR_PARSE (err: "PATH:LINE: what"), PDK_ERR_NO_MEMORY. */
pdk_error pdk_config_file_read(const char *path, const pdk_config_option *known, size_t n,
                               pdk_config_args *out, char *err, size_t err_len);
void pdk_config_args_free(pdk_config_args *args);

#endif
