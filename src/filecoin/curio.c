/* Curio's envelopes (include/cuzk/curio.h): JSON through jansson, base64
 * through libcrypto. */
#include "cuzk/curio.h"

#include <jansson.h>
#include <openssl/evp.h>
#include <stdlib.h>
#include <string.h>

void cuzk_curio_c1_free(cuzk_curio_c1 *c)
{
    free(c->c1);
    memset(c, 0, sizeof *c);
}

/* Standard base64 (with padding), the form Go's encoding/json writes. */
static cuzk_err b64_decode(const char *in, size_t n, uint8_t **out, size_t *len)
{
    *out = NULL;
    *len = 0;
    if (n % 4)
        return cuzk_fail(CUZK_EFORMAT,
                         "vanilla_proof.Phase1Out: base64 of %zu characters (not a "
                         "multiple of 4)",
                         n);
    uint8_t *b = malloc(n / 4 * 3 + 1);
    if (!b)
        return cuzk_fail(CUZK_ENOMEM, "out of memory for a %zu-byte C1 output", n / 4 * 3);
    int got = n ? EVP_DecodeBlock(b, (const unsigned char *)in, (int)n) : 0;
    if (got < 0) {
        free(b);
        return cuzk_fail(CUZK_EFORMAT, "vanilla_proof.Phase1Out: not base64");
    }
    /* EVP_DecodeBlock counts the padding's zero bytes. */
    size_t pad = n >= 1 && in[n - 1] == '=' ? 1 + (n >= 2 && in[n - 2] == '=') : 0;
    *out = b;
    *len = (size_t)got - pad;
    return CUZK_OK;
}

cuzk_err cuzk_curio_c1_decode(const uint8_t *data, size_t size, cuzk_curio_c1 *out)
{
    memset(out, 0, sizeof *out);
    json_error_t je;
    json_t *root = json_loadb((const char *)data, size, 0, &je);
    if (!root)
        return cuzk_fail(CUZK_EFORMAT, "vanilla_proof: not JSON (line %d column %d: %s)", je.line,
                         je.column, je.text);
    cuzk_err e = CUZK_OK;
    json_t *num = json_object_get(root, "SectorNum"), *b64 = json_object_get(root, "Phase1Out"),
           *sz = json_object_get(root, "SectorSize");
    if (!json_is_object(root))
        e = cuzk_fail(CUZK_EFORMAT, "vanilla_proof: a JSON object {SectorNum, Phase1Out, "
                                    "SectorSize} expected");
    else if (!json_is_integer(num))
        e = cuzk_fail(CUZK_EFORMAT, "vanilla_proof.SectorNum: missing or not an integer");
    else if (!json_is_integer(sz) || json_integer_value(sz) <= 0)
        e = cuzk_fail(CUZK_EFORMAT, "vanilla_proof.SectorSize: missing or not a positive integer");
    else if (!json_is_string(b64))
        e = cuzk_fail(CUZK_EFORMAT, "vanilla_proof.Phase1Out: missing or not a (base64) string");
    if (!e) {
        out->sector_num = (int64_t)json_integer_value(num);
        out->sector_size = (uint64_t)json_integer_value(sz);
        e = b64_decode(json_string_value(b64), json_string_length(b64), &out->c1, &out->c1_len);
    }
    json_decref(root);
    if (e)
        cuzk_curio_c1_free(out);
    return e;
}

cuzk_err cuzk_curio_c1_encode(int64_t sector_num, uint64_t sector_size, const uint8_t *c1,
                              size_t c1_len, char **out)
{
    *out = NULL;
    char *b64 = malloc((c1_len + 2) / 3 * 4 + 1);
    if (!b64)
        return cuzk_fail(CUZK_ENOMEM, "out of memory");
    EVP_EncodeBlock((unsigned char *)b64, c1, (int)c1_len);
    json_t *o = json_pack("{s:I,s:s,s:I}", "SectorNum", (json_int_t)sector_num, "Phase1Out", b64,
                          "SectorSize", (json_int_t)sector_size);
    free(b64);
    if (o)
        *out = json_dumps(o, JSON_COMPACT | JSON_PRESERVE_ORDER);
    json_decref(o);
    return *out ? CUZK_OK : cuzk_fail(CUZK_ENOMEM, "out of memory");
}
