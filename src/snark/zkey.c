/* snarkjs's Groth16 proving key (.zkey, version 1) and the prover over it.
 *
 * Sections: 1 protocol (u32: 1 = Groth16); 2 Groth16 header (u32 n8q, q,
 * u32 n8r, r, u32 n_vars, n_public, domain_size, then alpha_1, beta_1,
 * beta_2, gamma_2, delta_1, delta_2 in LEM form); 3 IC (n_public + 1 G1);
 * 4 coefficients (u32 count, then count x (u32 matrix 0=A 1=B, u32 row,
 * u32 signal, 32-byte c R^2 mod r)); 5 A, 6 B1 (n_vars G1), 7 B2 (n_vars G2),
 * 8 C (n_vars - n_public - 1 G1), 9 H (domain_size G1); 10 the MPC record,
 * which proving does not need. Every point is checked to be canonical and on
 * the curve when read; the subgroup check is made for the verifying key at
 * once and for the proving key only if a proof fails (read_points).
 *
 * Reading turns the key into cuzk's form (snark.h) so that proving is the
 * same code as for .params files: points at infinity leave A, B1, B2 and C
 * and set density bits instead; the coefficients become CSR matrices. Point
 * sections are decoded on the thread pool with the subgroup check; the lowest
 * bad index is reported. The prover computes a = A.w and b = B.w, c = a * b
 * row by row (the zkey has no C matrix), H on the odd coset, the MSMs, and
 * checks the proof with the key's own verifying part. */
#include "snark_internal.h"

#include "cuzk/threads.h"

#include <stdlib.h>
#include <string.h>

enum { SEC_PROTOCOL = 1, SEC_HEADER, SEC_IC, SEC_COEFS, SEC_A, SEC_B1, SEC_B2, SEC_C, SEC_H };

void cuzk_zkey_free(cuzk_zkey *z)
{
    if (!z)
        return;
    cuzk_params_free(&z->params);
    free(z->a_density);
    free(z->b_density);
    free(z->l_density);
    free(z->a_row);
    free(z->b_row);
    free(z->a_col);
    free(z->b_col);
    free(z->a_val);
    free(z->b_val);
    free(z);
}

typedef struct {
    const uint8_t *src;
    void *dst;
    int g2, in_group;
} pts_ctx;

static int point_bad(void *vctx, uint64_t i)
{
    pts_ctx *c = vctx;
    if (c->g2)
        return snark_g2_from_lem((blst_p2_affine *)c->dst + i, c->src + 192 * i, c->in_group) !=
               CUZK_OK;
    return snark_g1_from_lem((blst_p1_affine *)c->dst + i, c->src + 96 * i, c->in_group) != CUZK_OK;
}

/* Decode n points of a section into a new array (*out, malloc'd). The
 * subgroup check is made here for the verifying key (in_group); for the
 * proving-key sections it is left to cuzk_zkey_check_subgroups, which the
 * prover runs only when its proof fails to verify (a point outside the
 * subgroup cannot give a valid proof), so loading stays cheap. */
static cuzk_err read_points(const char *path, const char *what, const uint8_t *src, size_t size,
                            size_t n, int g2, int in_group, void **out)
{
    size_t sz = g2 ? 192 : 96;
    if (size != n * sz)
        return cuzk_fail(CUZK_EFORMAT, "%s: %s section has %zu bytes, %zu points need %zu", path,
                         what, size, n, n * sz);
    void *dst = malloc((n ? n : 1) * (g2 ? sizeof(blst_p2_affine) : sizeof(blst_p1_affine)));
    if (!dst)
        return cuzk_fail(CUZK_ENOMEM, "%s: cannot allocate the %s points", path, what);
    pts_ctx c = {src, dst, g2, in_group};
    uint64_t bad = cuzk_parallel_first(n, 1024, point_bad, &c);
    if (bad != UINT64_MAX) {
        cuzk_err e = g2 ? snark_g2_from_lem(dst, src + 192 * bad, in_group)
                        : snark_g1_from_lem(dst, src + 96 * bad, in_group);
        free(dst);
        return cuzk_fail_ctx(e, "%s: %s point %llu (offset %llu in the section): ", path, what,
                             (unsigned long long)bad, (unsigned long long)(bad * sz));
    }
    *out = dst;
    return CUZK_OK;
}

/* Move the finite points to the front, set their density bits. */
static cuzk_err compact(void *pts, size_t n, int g2, uint64_t **density, size_t *count)
{
    uint64_t *d = calloc((n + 63) / 64 + 1, sizeof *d);
    if (!d)
        return cuzk_fail(CUZK_ENOMEM, "zkey: out of memory");
    size_t j = 0;
    for (size_t i = 0; i < n; i++) {
        int inf = g2 ? blst_p2_affine_is_inf((blst_p2_affine *)pts + i)
                     : blst_p1_affine_is_inf((blst_p1_affine *)pts + i);
        if (inf)
            continue;
        d[i / 64] |= (uint64_t)1 << (i % 64);
        if (g2)
            ((blst_p2_affine *)pts)[j++] = ((blst_p2_affine *)pts)[i];
        else
            ((blst_p1_affine *)pts)[j++] = ((blst_p1_affine *)pts)[i];
    }
    *density = d;
    *count = j;
    return CUZK_OK;
}

/* The coefficient section into CSR matrices over the m rows. */
static cuzk_err read_coefs(const char *path, cuzk_zkey *z, const uint8_t *p, size_t size)
{
    size_t m = (size_t)1 << z->log_m;
    if (size < 4)
        return cuzk_fail(CUZK_EFORMAT, "%s: coefficients section truncated", path);
    size_t n = cuzk_get_le32(p);
    if (size != 4 + 44 * n)
        return cuzk_fail(CUZK_EFORMAT,
                         "%s: coefficients section has %zu bytes, %zu entries need %zu", path, size,
                         n, 4 + 44 * n);
    p += 4;
    z->a_row = calloc(m + 1, sizeof *z->a_row);
    z->b_row = calloc(m + 1, sizeof *z->b_row);
    if (!z->a_row || !z->b_row)
        return cuzk_fail(CUZK_ENOMEM, "%s: out of memory", path);
    for (size_t i = 0; i < n; i++) {
        const uint8_t *e = p + 44 * i;
        uint32_t mat = cuzk_get_le32(e), row = cuzk_get_le32(e + 4), sig = cuzk_get_le32(e + 8);
        if (mat > 1)
            return cuzk_fail(CUZK_EFORMAT, "%s: coefficient %zu names matrix %u (0 = A, 1 = B)",
                             path, i, mat);
        if (row >= m || sig >= z->n_vars)
            return cuzk_fail(CUZK_EFORMAT,
                             "%s: coefficient %zu at row %u, signal %u is outside %zu rows x "
                             "%u signals",
                             path, i, row, sig, m, z->n_vars);
        (mat ? z->b_row : z->a_row)[row + 1]++;
    }
    for (size_t r = 0; r < m; r++) {
        z->a_row[r + 1] += z->a_row[r];
        z->b_row[r + 1] += z->b_row[r];
    }
    size_t na = z->a_row[m], nb = z->b_row[m];
    z->a_col = malloc((na ? na : 1) * sizeof *z->a_col);
    z->b_col = malloc((nb ? nb : 1) * sizeof *z->b_col);
    z->a_val = malloc((na ? na : 1) * sizeof *z->a_val);
    z->b_val = malloc((nb ? nb : 1) * sizeof *z->b_val);
    uint64_t *fill = calloc(2 * m, sizeof *fill);
    if (!z->a_col || !z->b_col || !z->a_val || !z->b_val || !fill) {
        free(fill);
        return cuzk_fail(CUZK_ENOMEM, "%s: out of memory for %zu coefficients", path, n);
    }
    for (size_t i = 0; i < n; i++) {
        const uint8_t *e = p + 44 * i;
        uint32_t mat = cuzk_get_le32(e), row = cuzk_get_le32(e + 4), sig = cuzk_get_le32(e + 8);
        uint64_t at = (mat ? z->b_row : z->a_row)[row] + fill[2 * (size_t)row + mat]++;
        cuzk_err rc = snark_coef_from_zkey(mat ? &z->b_val[at] : &z->a_val[at], e + 12);
        if (rc) {
            free(fill);
            return cuzk_fail_ctx(rc, "%s: coefficient %zu: ", path, i);
        }
        (mat ? z->b_col : z->a_col)[at] = sig;
    }
    free(fill);
    return CUZK_OK;
}

static cuzk_err read_header(const char *path, cuzk_zkey *z, const uint8_t *h, size_t hs)
{
    if (hs < 4)
        return cuzk_fail(CUZK_EFORMAT, "%s: Groth16 header truncated", path);
    uint32_t n8q = cuzk_get_le32(h);
    if (hs < 4 + (size_t)n8q)
        return cuzk_fail(CUZK_EFORMAT, "%s: Groth16 header truncated", path);
    CUZK_TRY(snark_check_prime(path, "the base field", h + 4, n8q, snark_bls_q, 48));
    size_t want = 4 + 48 + 4 + 32 + 12 + 3 * 96 + 3 * 192;
    if (hs != want)
        return cuzk_fail(CUZK_EFORMAT, "%s: Groth16 header has %zu bytes, expected %zu", path, hs,
                         want);
    const uint8_t *p = h + 52;
    CUZK_TRY(snark_check_prime(path, "the scalar field", p + 4, cuzk_get_le32(p), snark_bls_r, 32));
    p += 36;
    z->n_vars = cuzk_get_le32(p);
    z->n_public = cuzk_get_le32(p + 4);
    uint32_t dom = cuzk_get_le32(p + 8);
    p += 12;
    if (z->n_vars == 0 || (uint64_t)z->n_public + 1 > z->n_vars)
        return cuzk_fail(CUZK_EFORMAT, "%s: %u public signals do not fit %u variables", path,
                         z->n_public, z->n_vars);
    if (dom == 0 || (dom & (dom - 1)) || dom > (1u << 28) || dom < z->n_public + 1u)
        return cuzk_fail(CUZK_EFORMAT, "%s: domain size %u is not a power of two in [%u, 2^28]",
                         path, dom, z->n_public + 1);
    z->log_m = 0;
    while ((1u << z->log_m) < dom)
        z->log_m++;
    cuzk_vk *vk = &z->params.vk;
    struct {
        const char *name;
        void *dst;
        int g2;
    } pts[6] = {{"alpha_1", &vk->alpha_g1, 0}, {"beta_1", &vk->beta_g1, 0},
                {"beta_2", &vk->beta_g2, 1},   {"gamma_2", &vk->gamma_g2, 1},
                {"delta_1", &vk->delta_g1, 0}, {"delta_2", &vk->delta_g2, 1}};
    for (int i = 0; i < 6; i++) {
        cuzk_err e =
            pts[i].g2 ? snark_g2_from_lem(pts[i].dst, p, 1) : snark_g1_from_lem(pts[i].dst, p, 1);
        if (e)
            return cuzk_fail_ctx(e, "%s: header point %s: ", path, pts[i].name);
        p += pts[i].g2 ? 192 : 96;
    }
    return CUZK_OK;
}

cuzk_err cuzk_zkey_read(const char *path, cuzk_zkey **out)
{
    *out = NULL;
    binfile b;
    CUZK_TRY(binfile_open(&b, path, "zkey", 1));
    cuzk_zkey *z = calloc(1, sizeof *z);
    cuzk_err rc;
    const uint8_t *s[SEC_H + 1];
    size_t sz[SEC_H + 1];
    static const char *const names[SEC_H + 1] = {
        "", "protocol", "Groth16 header", "IC", "coefficients", "A", "B1", "B2", "C", "H"};
    if (!z) {
        rc = cuzk_fail(CUZK_ENOMEM, "%s: out of memory", path);
        goto fail;
    }
    if ((rc = binfile_section(&b, SEC_PROTOCOL, names[SEC_PROTOCOL], &s[1], &sz[1])))
        goto fail;
    if (sz[1] != 4) {
        rc = cuzk_fail(CUZK_EFORMAT, "%s: protocol section has %zu bytes, expected 4", path, sz[1]);
        goto fail;
    }
    uint32_t proto = cuzk_get_le32(s[1]);
    if (proto != 1) {
        rc = cuzk_fail(CUZK_EUNSUPPORTED, "%s: the key is for %s, cuzk proves Groth16", path,
                       proto == 2    ? "PLONK"
                       : proto == 10 ? "FFLONK"
                                     : "an unknown protocol");
        goto fail;
    }
    for (int i = SEC_HEADER; i <= SEC_H; i++)
        if ((rc = binfile_section(&b, (uint32_t)i, names[i], &s[i], &sz[i])))
            goto fail;
    if ((rc = read_header(path, z, s[SEC_HEADER], sz[SEC_HEADER])))
        goto fail;

    size_t nv = z->n_vars, ni = (size_t)z->n_public + 1, m = (size_t)1 << z->log_m;
    cuzk_params *pp = &z->params;
    void *v;
    if ((rc = read_points(path, "IC", s[SEC_IC], sz[SEC_IC], ni, 0, 1, &v)))
        goto fail;
    pp->vk.ic = v;
    pp->vk.n_ic = ni;
    if ((rc = read_coefs(path, z, s[SEC_COEFS], sz[SEC_COEFS])))
        goto fail;
    if ((rc = read_points(path, "H", s[SEC_H], sz[SEC_H], m, 0, 0, &v)))
        goto fail;
    pp->h = v;
    pp->n_h = m;
    for (size_t i = 0; i < m; i++)
        if (blst_p1_affine_is_inf(&pp->h[i])) {
            rc = cuzk_fail(CUZK_ECURVE, "%s: H point %zu is the point at infinity", path, i);
            goto fail;
        }
    if ((rc = read_points(path, "A", s[SEC_A], sz[SEC_A], nv, 0, 0, &v)))
        goto fail;
    pp->a = v;
    if ((rc = compact(pp->a, nv, 0, &z->a_density, &pp->n_a)))
        goto fail;
    if ((rc = read_points(path, "B1", s[SEC_B1], sz[SEC_B1], nv, 0, 0, &v)))
        goto fail;
    pp->b_g1 = v;
    if ((rc = read_points(path, "B2", s[SEC_B2], sz[SEC_B2], nv, 1, 0, &v)))
        goto fail;
    pp->b_g2 = v;
    for (size_t i = 0; i < nv; i++)
        if (blst_p1_affine_is_inf(&pp->b_g1[i]) != blst_p2_affine_is_inf(&pp->b_g2[i])) {
            rc = cuzk_fail(CUZK_ECURVE,
                           "%s: B1 and B2 disagree on signal %zu (one is the point at infinity)",
                           path, i);
            goto fail;
        }
    uint64_t *d2;
    if ((rc = compact(pp->b_g1, nv, 0, &z->b_density, &pp->n_b_g1)) ||
        (rc = compact(pp->b_g2, nv, 1, &d2, &pp->n_b_g2)))
        goto fail;
    free(d2);
    if ((rc = read_points(path, "C", s[SEC_C], sz[SEC_C], nv - ni, 0, 0, &v)))
        goto fail;
    pp->l = v;
    if ((rc = compact(pp->l, nv - ni, 0, &z->l_density, &pp->n_l)))
        goto fail;
    z->shape = (cuzk_groth16_shape){z->log_m,     ni, nv - ni, z->a_density, z->b_density,
                                    z->l_density, 0,  0}; /* counted when proving */
    binfile_close(&b);
    *out = z;
    return CUZK_OK;
fail:
    cuzk_zkey_free(z);
    binfile_close(&b);
    return rc;
}

typedef struct {
    const uint64_t *row;
    const uint32_t *col;
    const cuzk_fr *val, *w;
    cuzk_fr *out;
} spmv_ctx;

static void spmv_rows(void *vctx, size_t begin, size_t end, unsigned worker)
{
    (void)worker;
    spmv_ctx *c = vctx;
    for (size_t r = begin; r < end; r++) {
        cuzk_fr acc, t;
        cuzk_fr_zero(&acc);
        for (uint64_t k = c->row[r]; k < c->row[r + 1]; k++) {
            blst_fr_mul(&t, &c->val[k], &c->w[c->col[k]]);
            blst_fr_add(&acc, &acc, &t);
        }
        c->out[r] = acc;
    }
}

static void zkey_spmv(const cuzk_zkey *z, const cuzk_fr *w, cuzk_fr *a, cuzk_fr *b)
{
    size_t m = (size_t)1 << z->log_m;
    spmv_ctx ca = {z->a_row, z->a_col, z->a_val, w, a};
    spmv_ctx cb = {z->b_row, z->b_col, z->b_val, w, b};
    cuzk_parallel_for(m, 1024, spmv_rows, &ca);
    cuzk_parallel_for(m, 1024, spmv_rows, &cb);
}

typedef struct {
    const void *pts;
    int g2;
} grp_ctx;

static int not_in_group(void *vctx, uint64_t i)
{
    grp_ctx *c = vctx;
    if (c->g2)
        return !blst_p2_affine_in_g2((const blst_p2_affine *)c->pts + i);
    return !blst_p1_affine_in_g1((const blst_p1_affine *)c->pts + i);
}

cuzk_err cuzk_zkey_check_subgroups(const cuzk_zkey *z)
{
    const cuzk_params *p = &z->params;
    struct {
        const char *name;
        const void *pts;
        size_t n;
        int g2;
    } q[] = {{"H", p->h, p->n_h, 0},
             {"C", p->l, p->n_l, 0},
             {"A", p->a, p->n_a, 0},
             {"B1", p->b_g1, p->n_b_g1, 0},
             {"B2", p->b_g2, p->n_b_g2, 1}};
    for (size_t k = 0; k < sizeof q / sizeof *q; k++) {
        grp_ctx c = {q[k].pts, q[k].g2};
        uint64_t bad = cuzk_parallel_first(q[k].n, 256, not_in_group, &c);
        if (bad != UINT64_MAX)
            return cuzk_fail(CUZK_ECURVE,
                             "zkey: %s point %llu (counting finite points only) is not in the "
                             "subgroup",
                             q[k].name, (unsigned long long)bad);
    }
    return CUZK_OK;
}

cuzk_err cuzk_zkey_prove(cuzk_backend *be, const cuzk_zkey *z, const cuzk_fr *w, size_t n,
                         const cuzk_fr *r, const cuzk_fr *s, cuzk_proof *out,
                         cuzk_prove_timings *tm)
{
    if (n != z->n_vars)
        return cuzk_fail(CUZK_EINVAL,
                         "the witness has %zu values, the circuit of this key has %u signals (a "
                         "witness for another circuit?)",
                         n, z->n_vars);
    cuzk_prove_timings tl;
    if (!tm)
        tm = &tl;
    double t0 = cuzk_now();
    size_t m = (size_t)1 << z->log_m;
    cuzk_fr *a = malloc(m * sizeof *a), *b = malloc(m * sizeof *b), *c = malloc(m * sizeof *c);
    cuzk_err rc;
    if (!a || !b || !c) {
        rc = cuzk_fail(CUZK_ENOMEM, "prove: cannot allocate 3 x %zu field elements", m);
        goto out;
    }
    zkey_spmv(z, w, a, b);
    cuzk_fr_vec_mul(c, a, b, m);
    double t_spmv = cuzk_now() - t0;
    if ((rc = cuzk_groth16_prove_abc(be, &z->params, &z->shape, w, a, b, c, r, s, out, tm)))
        goto out;
    tm->spmv = t_spmv;
    tm->total = cuzk_now() - t0;
    if (cuzk_groth16_verify(&z->params.vk, w + 1, z->n_public, out) != CUZK_OK &&
        (rc = cuzk_zkey_check_subgroups(z)) == CUZK_OK)
        rc = cuzk_fail(CUZK_EINVAL, "the witness does not satisfy the circuit of this key (its "
                                    "proof does not verify)");
out:
    free(a);
    free(b);
    free(c);
    return rc;
}

cuzk_err cuzk_zkey_check_pce(const cuzk_zkey *z, const cuzk_pce *pce)
{
    if (pce->n_inputs != (uint64_t)z->n_public + 1 ||
        pce->n_inputs + pce->n_aux != (uint64_t)z->n_vars || pce->log_domain != z->log_m)
        return cuzk_fail(CUZK_EINVAL,
                         "the circuit (%u inputs, %llu variables, domain 2^%u) is not the zkey's "
                         "(%u inputs, %u variables, domain 2^%u)",
                         pce->n_inputs, (unsigned long long)(pce->n_inputs + pce->n_aux),
                         pce->log_domain, z->n_public + 1, z->n_vars, z->log_m);
    for (size_t i = 0; i < z->n_vars; i++)
        if (cuzk_bitmap_get(z->a_density, i) != cuzk_bitmap_get(pce->a_density, i) ||
            cuzk_bitmap_get(z->b_density, i) != cuzk_bitmap_get(pce->b_density, i))
            return cuzk_fail(CUZK_EINVAL, "the circuit and the zkey differ in column %zu", i);
    /* Same matrices: A.x and B.x agree for a random x (a difference passes
     * with probability about 2^-255). */
    size_t m = (size_t)1 << z->log_m, nc = pce->n_constraints;
    cuzk_fr *x = malloc(z->n_vars * sizeof *x), *v = calloc(5 * m, sizeof *v);
    cuzk_err rc = CUZK_OK;
    if (!x || !v) {
        rc = cuzk_fail(CUZK_ENOMEM, "out of memory");
        goto out;
    }
    cuzk_fr_vec_rng(x, z->n_vars, 0x5eed);
    zkey_spmv(z, x, v, v + m);
    if ((rc = cuzk_pce_spmv(pce, x, v + 2 * m, v + 3 * m, v + 4 * m)))
        goto out;
    for (size_t r = 0; r < m; r++) {
        const cuzk_fr *pa = r < nc ? &v[2 * m + r] : NULL, *pb = r < nc ? &v[3 * m + r] : NULL;
        int a_ok = pa ? cuzk_fr_eq(&v[r], pa) : cuzk_fr_is_zero(&v[r]);
        int b_ok = pb ? cuzk_fr_eq(&v[m + r], pb) : cuzk_fr_is_zero(&v[m + r]);
        if (!a_ok || !b_ok) {
            rc = cuzk_fail(CUZK_EINVAL, "the circuit and the zkey differ in row %zu of %s", r,
                           a_ok ? "B" : "A");
            goto out;
        }
    }
out:
    free(x);
    free(v);
    return rc;
}
