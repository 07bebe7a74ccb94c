/* The C view of a parsed TOML file: a flat list of dotted keys with typed
 * values and line numbers. Implemented in toml_shim.cc over toml11, because
 * Debian ships no maintained TOML parser with a C API. */
#ifndef CUZK_TOML_SHIM_H
#define CUZK_TOML_SHIM_H

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

typedef enum {
    CUZK_TOML_BOOL,
    CUZK_TOML_INT,
    CUZK_TOML_FLOAT,
    CUZK_TOML_STRING,
    CUZK_TOML_ARRAY, /* of strings and/or integers (ints kept as text) */
    CUZK_TOML_OTHER, /* dates, nested arrays, arrays of tables */
} cuzk_toml_type;

typedef struct {
    char *key; /* "daemon.listen", "circuits.<id>.params" */
    cuzk_toml_type type;
    int b;
    int64_t i;
    double f;
    char *s;      /* STRING */
    char **items; /* ARRAY: each element as text */
    int *item_is_int;
    size_t n_items;
    unsigned line;
} cuzk_toml_item;

/* 0 on success; otherwise -1 with a one-line message (file, line, what) in
 * err. Tables are flattened; an empty table yields no item. */
int cuzk_toml_parse_flat(const char *path, cuzk_toml_item **items, size_t *n, char *err,
                         size_t errcap);
void cuzk_toml_items_free(cuzk_toml_item *items, size_t n);

#ifdef __cplusplus
}
#endif

#endif
