/* circom's constraint file (.r1cs, version 1) into a cuzk_r1cs builder.
 *
 * Sections: 1 header (u32 n8, prime, u32 n_wires, n_pub_out, n_pub_in,
 * n_prv_in, u64 n_labels, u32 n_constraints); 2 constraints, each three
 * linear combinations A, B, C of (u32 count, count x (u32 wire, n8-byte
 * little-endian coefficient)); 3 wire-to-label map (n_wires x u64); 4 and 5
 * custom gates (PLONK only, refused). Wire 0 is ONE, wires 1..n_public are
 * the public signals, the rest private: the builder allocates them in that
 * order so wire i is column i, then finalize() appends the input constraints
 * that snarkjs also adds. Every count is checked against the section length
 * before it is used, and the constraint section must be consumed exactly. */
#include "snark_internal.h"

#include <stdlib.h>
#include <string.h>

uint32_t cuzk_circom_r1cs_n_public(const cuzk_circom_r1cs *r)
{
    return r->n_pub_out + r->n_pub_in;
}

void cuzk_circom_r1cs_free(cuzk_circom_r1cs *r)
{
    if (!r)
        return;
    cuzk_r1cs_free(r->cs);
    free(r);
}

typedef struct {
    const char *path;
    const uint8_t *p;
    size_t size, off;
    uint32_t n_wires, n_public;
} lc_reader;

/* One linear combination into terms (grown as needed). */
static cuzk_err read_lc(lc_reader *rd, uint32_t row, const char *which, cuzk_term **terms,
                        size_t *cap, size_t *n)
{
    if (rd->size - rd->off < 4)
        return cuzk_fail(CUZK_EFORMAT, "%s: constraints section truncated in constraint %u (%s)",
                         rd->path, row, which);
    uint32_t k = cuzk_get_le32(rd->p + rd->off);
    rd->off += 4;
    if ((uint64_t)k * 36 > rd->size - rd->off)
        return cuzk_fail(CUZK_EFORMAT,
                         "%s: constraints section truncated: constraint %u (%s) has %u terms",
                         rd->path, row, which, k);
    if (k > *cap) {
        cuzk_term *t = realloc(*terms, k * sizeof *t);
        if (!t)
            return cuzk_fail(CUZK_ENOMEM, "%s: out of memory", rd->path);
        *terms = t;
        *cap = k;
    }
    for (uint32_t i = 0; i < k; i++) {
        const uint8_t *e = rd->p + rd->off + 36 * (size_t)i;
        uint32_t wire = cuzk_get_le32(e);
        if (wire >= rd->n_wires)
            return cuzk_fail(CUZK_EFORMAT, "%s: constraint %u (%s) uses wire %u of %u", rd->path,
                             row, which, wire, rd->n_wires);
        cuzk_err e2 = cuzk_fr_from_bytes_le(&(*terms)[i].coeff, e + 4);
        if (e2)
            return cuzk_fail_ctx(e2, "%s: constraint %u (%s) term %u: ", rd->path, row, which, i);
        (*terms)[i].var =
            wire <= rd->n_public ? wire : (CUZK_VAR_AUX_BIT | (wire - rd->n_public - 1));
    }
    rd->off += 36 * (size_t)k;
    *n = k;
    return CUZK_OK;
}

cuzk_err cuzk_circom_r1cs_read(const char *path, cuzk_circom_r1cs **out)
{
    *out = NULL;
    binfile b;
    CUZK_TRY(binfile_open(&b, path, "r1cs", 1));
    cuzk_circom_r1cs *r = calloc(1, sizeof *r);
    cuzk_term *t[3] = {NULL, NULL, NULL};
    size_t cap[3] = {0, 0, 0}, n[3];
    const uint8_t *h, *cons, *map;
    size_t hs, cs_size, ms;
    cuzk_err rc;
    if (!r) {
        rc = cuzk_fail(CUZK_ENOMEM, "%s: out of memory", path);
        goto fail;
    }
    if (binfile_has(&b, 4) || binfile_has(&b, 5)) {
        rc = cuzk_fail(CUZK_EUNSUPPORTED,
                       "%s: custom gates (a PLONK feature) are not supported for Groth16", path);
        goto fail;
    }
    if ((rc = binfile_section(&b, 1, "header", &h, &hs)) ||
        (rc = binfile_section(&b, 2, "constraints", &cons, &cs_size)) ||
        (rc = binfile_section(&b, 3, "wire-to-label map", &map, &ms)))
        goto fail;
    uint32_t n8 = hs >= 4 ? cuzk_get_le32(h) : 0;
    if (hs < 4 || hs != 4 + (size_t)n8 + 28) {
        rc = cuzk_fail(CUZK_EFORMAT, "%s: header section has %zu bytes, expected 4 + n8 + 28", path,
                       hs);
        goto fail;
    }
    if ((rc = snark_check_prime(path, "the constraint field", h + 4, n8, snark_bls_r, 32)))
        goto fail;
    const uint8_t *q = h + 4 + n8;
    r->n_wires = cuzk_get_le32(q);
    r->n_pub_out = cuzk_get_le32(q + 4);
    r->n_pub_in = cuzk_get_le32(q + 8);
    r->n_prv_in = cuzk_get_le32(q + 12);
    r->n_labels = cuzk_get_le64(q + 16);
    r->n_constraints = cuzk_get_le32(q + 24);
    uint64_t n_public = (uint64_t)r->n_pub_out + r->n_pub_in;
    if (r->n_wires == 0 || n_public + 1 + r->n_prv_in > r->n_wires) {
        rc = cuzk_fail(CUZK_EFORMAT,
                       "%s: %u wires cannot hold ONE, %llu public and %u private inputs", path,
                       r->n_wires, (unsigned long long)n_public, r->n_prv_in);
        goto fail;
    }
    if (ms != 8 * (size_t)r->n_wires) {
        rc = cuzk_fail(CUZK_EFORMAT, "%s: wire-to-label map has %zu bytes, %u wires need %zu", path,
                       ms, r->n_wires, 8 * (size_t)r->n_wires);
        goto fail;
    }
    for (uint32_t i = 0; i < r->n_wires; i++)
        if (cuzk_get_le64(map + 8 * (size_t)i) >= r->n_labels) {
            rc = cuzk_fail(CUZK_EFORMAT, "%s: wire %u maps to label %llu of %llu", path, i,
                           (unsigned long long)cuzk_get_le64(map + 8 * (size_t)i),
                           (unsigned long long)r->n_labels);
            goto fail;
        }

    if ((rc = cuzk_r1cs_new(&r->cs, 0)))
        goto fail;
    for (uint32_t i = 1; i < r->n_wires; i++) {
        cuzk_var v;
        rc = i <= n_public ? cuzk_r1cs_alloc_input(r->cs, NULL, &v)
                           : cuzk_r1cs_alloc_aux(r->cs, NULL, &v);
        if (rc)
            goto fail;
    }
    lc_reader rd = {path, cons, cs_size, 0, r->n_wires, (uint32_t)n_public};
    static const char *const names[3] = {"A", "B", "C"};
    for (uint32_t row = 0; row < r->n_constraints; row++) {
        for (int m = 0; m < 3; m++)
            if ((rc = read_lc(&rd, row, names[m], &t[m], &cap[m], &n[m])))
                goto fail;
        if ((rc = cuzk_r1cs_enforce(r->cs, t[0], n[0], t[1], n[1], t[2], n[2])))
            goto fail;
    }
    if (rd.off != cs_size) {
        rc = cuzk_fail(CUZK_EFORMAT, "%s: %zu bytes after the last of %u constraints", path,
                       cs_size - rd.off, r->n_constraints);
        goto fail;
    }
    if ((rc = cuzk_r1cs_finalize(r->cs)))
        goto fail;
    for (int m = 0; m < 3; m++)
        free(t[m]);
    binfile_close(&b);
    *out = r;
    return CUZK_OK;
fail:
    for (int m = 0; m < 3; m++)
        free(t[m]);
    cuzk_circom_r1cs_free(r);
    binfile_close(&b);
    return rc;
}
