/* Writing a snarkjs Groth16 zkey from cuzk parameters whose H query is in
 * the odd-coset basis (setup with CUZK_H_SNARKJS, or a zkey read earlier)
 * and the circuit's PCE. The layout is the one zkey.c reads; A, B1 and B2
 * get a point for every variable again (infinity where the density bit is
 * clear), and the coefficient section lists each row's A terms, then its B
 * terms, row by row, as snarkjs writes them (the input constraints are the
 * PCE's last rows). The file goes to "<path>.tmp-<pid>" and is renamed into
 * place when complete; it is removed when writing fails or the progress
 * callback stops it. */
#include "snark_internal.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

typedef struct {
    FILE *f;
    int failed, cancelled; /* cancelled: the progress callback asked to stop */
    cuzk_progress_fn progress;
    void *ctx;
    uint64_t points, total; /* points written, of total */
} out_file;

static void put(out_file *o, const void *p, size_t n)
{
    if (!o->failed && n && fwrite(p, 1, n, o->f) != n)
        o->failed = 1;
}

/* One more point written: every 2^16 points (and at the end) the callback
 * hears of it, and may stop the writing. */
static void count_point(out_file *o)
{
    o->points++;
    if (o->progress && !o->failed && (o->points % 65536 == 0 || o->points == o->total) &&
        o->progress(o->ctx, o->points, o->total))
        o->failed = o->cancelled = 1;
}

static void put_u32(out_file *o, uint32_t v)
{
    uint8_t b[4];
    cuzk_put_le32(b, v);
    put(o, b, 4);
}

static void put_section(out_file *o, uint32_t type, uint64_t size)
{
    uint8_t b[12];
    bin_put_section_header(b, type, size);
    put(o, b, 12);
}

static void put_g1(out_file *o, const blst_p1_affine *p)
{
    uint8_t b[96];
    snark_g1_to_lem(b, p);
    put(o, b, 96);
    count_point(o);
}

static void put_g2(out_file *o, const blst_p2_affine *p)
{
    uint8_t b[192];
    snark_g2_to_lem(b, p);
    put(o, b, 192);
    count_point(o);
}

/* The G1 points of a compacted query, spread back over n variables. */
static void put_spread_g1(out_file *o, const blst_p1_affine *pts, const uint64_t *d, size_t n)
{
    blst_p1_affine inf;
    memset(&inf, 0, sizeof inf);
    for (size_t i = 0, j = 0; i < n; i++)
        put_g1(o, cuzk_bitmap_get(d, i) ? &pts[j++] : &inf);
}

static void put_coefs(out_file *o, const cuzk_csr *m, const cuzk_fr *coeffs, uint32_t mat,
                      uint64_t row)
{
    for (uint64_t k = m->row_ptr[row]; k < m->row_ptr[row + 1]; k++) {
        uint8_t e[44];
        cuzk_put_le32(e, mat);
        cuzk_put_le32(e + 4, (uint32_t)row);
        cuzk_put_le32(e + 8, m->col[k]);
        snark_coef_to_zkey(e + 12, &coeffs[m->coef[k]]);
        put(o, e, 44);
    }
}

cuzk_err cuzk_zkey_write(const char *path, const cuzk_params *p, const cuzk_pce *pce)
{
    return cuzk_zkey_write_progress(path, p, pce, NULL, NULL);
}

cuzk_err cuzk_zkey_write_progress(const char *path, const cuzk_params *p, const cuzk_pce *pce,
                                  cuzk_progress_fn progress, void *ctx)
{
    size_t m = (size_t)1 << pce->log_domain, ni = pce->n_inputs, nv = ni + pce->n_aux;
    if (p->n_h != m)
        return cuzk_fail(CUZK_EINVAL,
                         "zkey: the H query has %zu points; a zkey needs the odd-coset basis "
                         "(%zu points: parameters from `cuzk setup --zkey` or converted from a "
                         "zkey), bellperson's basis cannot be converted",
                         p->n_h, m);
    if (p->vk.n_ic != ni || p->n_l != pce->n_aux ||
        p->n_a != cuzk_bitmap_count(pce->a_density, nv) ||
        p->n_b_g1 != cuzk_bitmap_count(pce->b_density, nv) || p->n_b_g2 != p->n_b_g1)
        return cuzk_fail(CUZK_EINVAL, "zkey: the parameters do not belong to this circuit");
    if (nv > UINT32_MAX || pce->n_constraints > UINT32_MAX)
        return cuzk_fail(CUZK_EINVAL, "zkey: the circuit is too large for the format");

    size_t plen = strlen(path) + 32;
    char *tmp = malloc(plen);
    if (!tmp)
        return cuzk_fail(CUZK_ENOMEM, "zkey: out of memory");
    snprintf(tmp, plen, "%s.tmp-%d", path, (int)getpid());
    uint64_t total = 3 * (uint64_t)nv + 6 + ni + pce->n_aux + m; /* A, B1, B2, VK, IC, C, H */
    if (progress && progress(ctx, 0, total)) { /* stopped before a byte is written */
        free(tmp);
        return cuzk_fail(CUZK_ECANCELLED, "zkey: writing %s cancelled", path);
    }
    out_file o = {fopen(tmp, "wb"), 0, 0, progress, ctx, 0, total};
    if (!o.f) {
        cuzk_err e = cuzk_fail(CUZK_EIO, "zkey: cannot create %s", tmp);
        free(tmp);
        return e;
    }
    uint8_t hdr[12];
    bin_put_header(hdr, "zkey", 1, 10);
    put(&o, hdr, 12);
    put_section(&o, 1, 4);
    put_u32(&o, 1); /* Groth16 */

    put_section(&o, 2, 4 + 48 + 4 + 32 + 12 + 3 * 96 + 3 * 192);
    put_u32(&o, 48);
    put(&o, snark_bls_q, 48);
    put_u32(&o, 32);
    put(&o, snark_bls_r, 32);
    put_u32(&o, (uint32_t)nv);
    put_u32(&o, (uint32_t)(ni - 1));
    put_u32(&o, (uint32_t)m);
    put_g1(&o, &p->vk.alpha_g1);
    put_g1(&o, &p->vk.beta_g1);
    put_g2(&o, &p->vk.beta_g2);
    put_g2(&o, &p->vk.gamma_g2);
    put_g1(&o, &p->vk.delta_g1);
    put_g2(&o, &p->vk.delta_g2);

    put_section(&o, 3, 96 * (uint64_t)ni);
    for (size_t i = 0; i < ni; i++)
        put_g1(&o, &p->vk.ic[i]);

    uint64_t n_coefs = pce->a.nnz + pce->b.nnz;
    put_section(&o, 4, 4 + 44 * n_coefs);
    put_u32(&o, (uint32_t)n_coefs);
    for (uint64_t r = 0; r < pce->n_constraints; r++) {
        put_coefs(&o, &pce->a, pce->coeffs, 0, r);
        put_coefs(&o, &pce->b, pce->coeffs, 1, r);
    }

    put_section(&o, 5, 96 * (uint64_t)nv);
    put_spread_g1(&o, p->a, pce->a_density, nv);
    put_section(&o, 6, 96 * (uint64_t)nv);
    put_spread_g1(&o, p->b_g1, pce->b_density, nv);
    put_section(&o, 7, 192 * (uint64_t)nv);
    blst_p2_affine inf2;
    memset(&inf2, 0, sizeof inf2);
    for (size_t i = 0, j = 0; i < nv; i++)
        put_g2(&o, cuzk_bitmap_get(pce->b_density, i) ? &p->b_g2[j++] : &inf2);
    put_section(&o, 8, 96 * (uint64_t)pce->n_aux);
    for (size_t i = 0; i < pce->n_aux; i++)
        put_g1(&o, &p->l[i]);
    put_section(&o, 9, 96 * (uint64_t)m);
    for (size_t i = 0; i < m; i++)
        put_g1(&o, &p->h[i]);

    /* MPC record: circuit hash (not computed: zeros) and no contribution. */
    uint8_t zero[64] = {0};
    put_section(&o, 10, 64 + 4);
    put(&o, zero, 64);
    put_u32(&o, 0);

    int bad = o.failed | (fclose(o.f) != 0);
    cuzk_err rc = CUZK_OK;
    if (o.cancelled)
        rc = cuzk_fail(CUZK_ECANCELLED, "zkey: writing %s cancelled after %llu of %llu points",
                       path, (unsigned long long)o.points, (unsigned long long)o.total);
    else if (bad)
        rc = cuzk_fail(CUZK_EIO, "zkey: writing %s failed", tmp);
    else if (rename(tmp, path) != 0)
        rc = cuzk_fail(CUZK_EIO, "zkey: cannot rename %s to %s", tmp, path);
    if (rc)
        unlink(tmp);
    free(tmp);
    return rc;
}
