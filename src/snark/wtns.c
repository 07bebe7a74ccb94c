/* snarkjs's witness file (.wtns, version 2): section 1 = u32 n8, the prime
 * (n8 bytes), u32 n_witness; section 2 = n_witness values of n8 bytes, plain
 * little-endian integers below the prime. */
#include "snark_internal.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

cuzk_err cuzk_wtns_read(const char *path, cuzk_fr **out, size_t *n_out)
{
    binfile b;
    CUZK_TRY(binfile_open(&b, path, "wtns", 2));
    const uint8_t *h, *v;
    size_t hs, vs;
    cuzk_err rc;
    cuzk_fr *w = NULL;
    if ((rc = binfile_section(&b, 1, "header", &h, &hs)) ||
        (rc = binfile_section(&b, 2, "values", &v, &vs)))
        goto out;
    if (hs < 4 || hs != 4 + (size_t)cuzk_get_le32(h) + 4) {
        rc = cuzk_fail(CUZK_EFORMAT, "%s: header section has %zu bytes, expected 4 + n8 + 4", path,
                       hs);
        goto out;
    }
    uint32_t n8 = cuzk_get_le32(h);
    if ((rc = snark_check_prime(path, "the witness field", h + 4, n8, snark_bls_r, 32)))
        goto out;
    size_t n = cuzk_get_le32(h + 4 + n8);
    if (vs != n * 32) {
        rc = cuzk_fail(CUZK_EFORMAT, "%s: values section has %zu bytes, %zu values need %zu", path,
                       vs, n, n * 32);
        goto out;
    }
    if (n == 0) {
        rc = cuzk_fail(CUZK_EFORMAT, "%s: empty witness", path);
        goto out;
    }
    w = malloc(n * sizeof *w);
    if (!w) {
        rc = cuzk_fail(CUZK_ENOMEM, "%s: cannot allocate %zu values", path, n);
        goto out;
    }
    for (size_t i = 0; i < n; i++)
        if ((rc = cuzk_fr_from_bytes_le(&w[i], v + 32 * i))) {
            cuzk_fail_ctx(rc, "%s: value %zu: ", path, i);
            goto out;
        }
    if (!cuzk_fr_is_one(&w[0])) {
        rc = cuzk_fail(CUZK_EFORMAT, "%s: value 0 must be the constant 1", path);
        goto out;
    }
    *out = w;
    *n_out = n;
    w = NULL;
out:
    free(w);
    binfile_close(&b);
    return rc;
}

cuzk_err cuzk_wtns_write(const char *path, const cuzk_fr *w, size_t n)
{
    if (n > UINT32_MAX)
        return cuzk_fail(CUZK_EINVAL, "wtns: %zu values do not fit the format", n);
    size_t hs = 4 + 32 + 4, size = 12 + 12 + hs + 12 + 32 * n;
    uint8_t *buf = malloc(size);
    if (!buf)
        return cuzk_fail(CUZK_ENOMEM, "wtns: out of memory");
    uint8_t *p = buf;
    bin_put_header(p, "wtns", 2, 2);
    p += 12;
    bin_put_section_header(p, 1, hs);
    p += 12;
    cuzk_put_le32(p, 32);
    memcpy(p + 4, snark_bls_r, 32);
    cuzk_put_le32(p + 36, (uint32_t)n);
    p += hs;
    bin_put_section_header(p, 2, 32 * (uint64_t)n);
    p += 12;
    for (size_t i = 0; i < n; i++)
        cuzk_fr_to_bytes_le(p + 32 * i, &w[i]);
    cuzk_err rc = cuzk_write_file(path, buf, size);
    free(buf);
    return rc;
}
