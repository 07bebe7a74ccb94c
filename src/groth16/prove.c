/* The Groth16 prover, bellperson's algorithm over a backend:
 *
 *   a, b, c = A.w, B.w, C.w           (PCE SpMV; every row is checked: a*b == c)
 *   h       = (a*b - c) / Z            (backend: NTTs on the coset)
 *   A = alpha + sum w_i A_i + r delta                          (G1)
 *   B = beta  + sum w_i B_i + s delta                          (G2)
 *   C = sum aux_i L_i + sum h_i H_i + s A + r B_g1 - r s delta (G1)
 *
 * C is assembled as bellperson does (rs delta + s alpha + r beta + s.sumA +
 * r.sumB1 + H + L), so for fixed r, s the proof bytes equal bellperson's. The
 * witness check turns an unsatisfied witness into a clear error instead of a
 * proof that fails verification later.
 *
 * cuzk_groth16_prove_abc is the part after the SpMV, shared with the zkey
 * prover (snark/): it takes the H basis from the length of the h query
 * (bellperson's m - 1 points, or snarkjs's m odd-coset points) and an
 * optional density for L (zkey files keep points at infinity). */
#include "cuzk/groth16.h"
#include "cuzk/curve.h"
#include "cuzk/threads.h"
#include "cuzk/util.h"

#include <stdlib.h>
#include <string.h>

typedef struct {
    const cuzk_fr *a, *b, *c;
} check_ctx;

/* Row i of the witness check: non-zero when a_i * b_i != c_i. */
static int row_unsatisfied(void *vctx, uint64_t i)
{
    check_ctx *c = vctx;
    cuzk_fr t;
    blst_fr_mul(&t, &c->a[i], &c->b[i]);
    return !cuzk_fr_eq(&t, &c->c[i]);
}

static cuzk_err check_counts(const cuzk_params *p, const cuzk_groth16_shape *sh,
                             cuzk_h_basis *basis)
{
    uint64_t m = (uint64_t)1 << sh->log_m;
    if (p->n_h == m - 1)
        *basis = CUZK_H_BELLPERSON;
    else if (p->n_h == m)
        *basis = CUZK_H_SNARKJS;
    else
        return cuzk_fail(CUZK_EINVAL,
                         "parameters do not match the circuit: h has %zu points, the circuit "
                         "needs %llu (or %llu in the odd-coset basis of zkey files)",
                         p->n_h, (unsigned long long)(m - 1), (unsigned long long)m);
    size_t n_vars = sh->n_inputs + sh->n_aux;
    struct {
        const char *name;
        uint64_t have, want;
    } c[] = {
        {"ic", p->vk.n_ic, sh->n_inputs},
        {"l", p->n_l, sh->l_density ? cuzk_bitmap_count(sh->l_density, sh->n_aux) : sh->n_aux},
        {"a", p->n_a, cuzk_bitmap_count(sh->a_density, n_vars)},
        {"b_g1", p->n_b_g1, cuzk_bitmap_count(sh->b_density, n_vars)},
        {"b_g2", p->n_b_g2, cuzk_bitmap_count(sh->b_density, n_vars)},
    };
    for (size_t i = 0; i < sizeof c / sizeof *c; i++)
        if (c[i].have != c[i].want)
            return cuzk_fail(CUZK_EINVAL,
                             "parameters do not match the circuit: %s has %llu points, the "
                             "circuit needs %llu",
                             c[i].name, (unsigned long long)c[i].have,
                             (unsigned long long)c[i].want);
    return CUZK_OK;
}

static void g1_mul_aff(blst_p1 *out, const blst_p1_affine *p, const cuzk_fr *k)
{
    blst_p1 t;
    blst_p1_from_affine(&t, p);
    cuzk_g1_mul(out, &t, k);
}

cuzk_err cuzk_groth16_prove(cuzk_backend *be, const cuzk_params *params, const cuzk_pce *pce,
                            const cuzk_fr *w, const cuzk_fr *r, const cuzk_fr *s, cuzk_proof *out,
                            cuzk_prove_timings *tm)
{
    cuzk_prove_timings tl;
    if (!tm)
        tm = &tl;
    double t_start = cuzk_now();
    cuzk_groth16_shape sh = {pce->log_domain, pce->n_inputs,  pce->n_aux,
                             pce->a_density,  pce->b_density, NULL};
    cuzk_h_basis basis;
    CUZK_TRY(check_counts(params, &sh, &basis));
    size_t m = (size_t)1 << pce->log_domain;
    cuzk_fr *a = calloc(m, sizeof *a), *b = calloc(m, sizeof *b), *c = calloc(m, sizeof *c);
    cuzk_err rc = CUZK_OK;
    if (!a || !b || !c) {
        rc = cuzk_fail(CUZK_ENOMEM, "prove: cannot allocate 3 x %zu field elements", m);
        goto out;
    }
    double t = cuzk_now();
    if ((rc = cuzk_pce_spmv(pce, w, a, b, c)) != CUZK_OK)
        goto out;
    check_ctx cc = {a, b, c};
    uint64_t bad = cuzk_parallel_first(pce->n_constraints, 4096, row_unsatisfied, &cc);
    if (bad != UINT64_MAX) {
        rc = cuzk_fail(CUZK_EINVAL, "witness does not satisfy constraint %llu",
                       (unsigned long long)bad);
        goto out;
    }
    double t_spmv = cuzk_now() - t;
    rc = cuzk_groth16_prove_abc(be, params, &sh, w, a, b, c, r, s, out, tm);
    tm->spmv = t_spmv;
    tm->total = cuzk_now() - t_start;
out:
    free(a);
    free(b);
    free(c);
    return rc;
}

cuzk_err cuzk_groth16_prove_abc(cuzk_backend *be, const cuzk_params *params,
                                const cuzk_groth16_shape *sh, const cuzk_fr *w, cuzk_fr *a,
                                cuzk_fr *b, cuzk_fr *c, const cuzk_fr *r_in, const cuzk_fr *s_in,
                                cuzk_proof *out, cuzk_prove_timings *tm)
{
    cuzk_prove_timings tl;
    if (!tm)
        tm = &tl;
    memset(tm, 0, sizeof *tm);
    double t_start = cuzk_now(), t;
    cuzk_h_basis basis;
    CUZK_TRY(check_counts(params, sh, &basis));
    cuzk_fr one;
    cuzk_fr_one(&one);
    if (!cuzk_fr_eq(&w[0], &one))
        return cuzk_fail(CUZK_EINVAL, "witness: w[0] must be the constant 1");

    cuzk_fr r, s;
    if (r_in)
        r = *r_in;
    else
        CUZK_TRY(cuzk_fr_random(&r));
    if (s_in)
        s = *s_in;
    else
        CUZK_TRY(cuzk_fr_random(&s));

    size_t n_vars = sh->n_inputs + sh->n_aux;
    cuzk_err rc;
    t = cuzk_now();
    if (basis == CUZK_H_BELLPERSON)
        rc = be->ops->compute_h(be, sh->log_m, a, b, c);
    else if (be->ops->compute_h_odd_coset)
        rc = be->ops->compute_h_odd_coset(be, sh->log_m, a, b, c);
    else
        rc = cuzk_h_odd_coset_cpu(sh->log_m, a, b, c);
    if (rc)
        return rc;
    tm->h = cuzk_now() - t;

    blst_p1 h_sum, l_sum, a_sum, b1_sum;
    blst_p2 b2_sum;
    t = cuzk_now();
    if ((rc = be->ops->msm_g1(be, &h_sum, params->h, params->n_h, a, NULL, params->n_h, NULL)))
        return rc;
    tm->msm_h = cuzk_now() - t;
    t = cuzk_now();
    if ((rc = be->ops->msm_g1(be, &l_sum, params->l, params->n_l, w + sh->n_inputs, sh->l_density,
                              sh->n_aux, &tm->st_l)))
        return rc;
    tm->msm_l = cuzk_now() - t;
    t = cuzk_now();
    if ((rc = be->ops->msm_g1(be, &a_sum, params->a, params->n_a, w, sh->a_density, n_vars,
                              &tm->st_a)))
        return rc;
    tm->msm_a = cuzk_now() - t;
    t = cuzk_now();
    if ((rc = be->ops->msm_g1(be, &b1_sum, params->b_g1, params->n_b_g1, w, sh->b_density, n_vars,
                              &tm->st_b_g1)))
        return rc;
    tm->msm_b_g1 = cuzk_now() - t;
    t = cuzk_now();
    if ((rc = be->ops->msm_g2(be, &b2_sum, params->b_g2, params->n_b_g2, w, sh->b_density, n_vars,
                              NULL)))
        return rc;
    tm->msm_b_g2 = cuzk_now() - t;

    const cuzk_vk *vk = &params->vk;
    blst_p1 g_a, g_c, tmp;
    blst_p2 g_b, tmp2;
    /* A = r delta + alpha + sumA */
    g1_mul_aff(&g_a, &vk->delta_g1, &r);
    blst_p1_add_or_double_affine(&g_a, &g_a, &vk->alpha_g1);
    blst_p1_add_or_double(&g_a, &g_a, &a_sum);
    /* B = s delta + beta + sumB2 */
    blst_p2_from_affine(&tmp2, &vk->delta_g2);
    cuzk_g2_mul(&g_b, &tmp2, &s);
    blst_p2_add_or_double_affine(&g_b, &g_b, &vk->beta_g2);
    blst_p2_add_or_double(&g_b, &g_b, &b2_sum);
    /* C = rs delta + s alpha + r beta + s sumA + r sumB1 + H + L */
    cuzk_fr rs;
    blst_fr_mul(&rs, &r, &s);
    g1_mul_aff(&g_c, &vk->delta_g1, &rs);
    g1_mul_aff(&tmp, &vk->alpha_g1, &s);
    blst_p1_add_or_double(&g_c, &g_c, &tmp);
    g1_mul_aff(&tmp, &vk->beta_g1, &r);
    blst_p1_add_or_double(&g_c, &g_c, &tmp);
    cuzk_g1_mul(&tmp, &a_sum, &s);
    blst_p1_add_or_double(&g_c, &g_c, &tmp);
    cuzk_g1_mul(&tmp, &b1_sum, &r);
    blst_p1_add_or_double(&g_c, &g_c, &tmp);
    blst_p1_add_or_double(&g_c, &g_c, &h_sum);
    blst_p1_add_or_double(&g_c, &g_c, &l_sum);

    blst_p1_to_affine(&out->a, &g_a);
    blst_p2_to_affine(&out->b, &g_b);
    blst_p1_to_affine(&out->c, &g_c);
    tm->total = cuzk_now() - t_start;
    return CUZK_OK;
}
