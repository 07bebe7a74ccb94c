/* Private to src/snark: a JSON tree for the small files snarkjs writes. */
#ifndef CUZK_SNARK_JSON_H
#define CUZK_SNARK_JSON_H

#include <stddef.h>

#include "cuzk/err.h"
#include "cuzk/util.h"

typedef enum {
    JSON_NULL,
    JSON_TRUE,
    JSON_FALSE,
    JSON_NUMBER,
    JSON_STRING,
    JSON_ARRAY,
    JSON_OBJECT
} json_type;

typedef struct json_value {
    json_type type;
    char *text;               /* STRING (unescaped) and NUMBER (as written) */
    size_t n;                 /* ARRAY / OBJECT entries */
    struct json_value *items; /* n values */
    char **keys;              /* OBJECT: n keys */
} json_value;

/* Parse exactly one value (surrounding white space allowed). `name` is used
 * in messages: "<name>: invalid JSON at byte N: <why>". */
cuzk_err json_parse(const char *text, size_t n, const char *name, json_value *out);
cuzk_err json_read_file(const char *path, json_value *out);
void json_free(json_value *v);
/* The value of a key of an object (first match), or NULL. */
const json_value *json_get(const json_value *obj, const char *key);

#endif
