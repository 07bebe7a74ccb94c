/* Groth16 parameter generation (bellperson's generator, written for large
 * circuits):
 *
 *   L_j(tau)   Lagrange basis of the domain at tau, rows j < n_constraints:
 *              Z(tau)/m * omega^j / (tau - omega^j)  (one batch inversion)
 *   u, v, t    = A^T L, B^T L, C^T L  (QAP polynomials at tau, per variable)
 *   ic_i       = (beta u_i + alpha v_i + t_i) / gamma    inputs
 *   l_i        = (beta u_i + alpha v_i + t_i) / delta    aux
 *   a, b_g1, b_g2 = u_i G1, v_i G1, v_i G2 for columns non-empty in A / B
 *   h_i        = tau^i Z(tau) / delta G1, i < m - 1 (bellperson), or m
 *                points in the odd-coset basis of zkey files (emit_h_odd_coset)
 *
 * Points come from fixed-base comb tables (no doublings per point) and are
 * written chunk by chunk, so memory stays O(variables) field elements plus
 * one chunk of points, never the whole parameter file. The file is written to
 * "<path>.tmp-<pid>" and renamed only when complete. */
#include "cuzk/curve.h"
#include "cuzk/groth16.h"
#include "cuzk/log.h"
#include "cuzk/msm.h"
#include "cuzk/threads.h"
#include "cuzk/util.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#define CHUNK ((size_t)1 << 16)
#define G1_WBITS 12
#define G2_WBITS 10

static cuzk_err random_nonzero(cuzk_fr *x)
{
    do
        CUZK_TRY(cuzk_fr_random(x));
    while (cuzk_fr_is_zero(x));
    return CUZK_OK;
}

/* Write scalars k[0..n) times the G1 (or G2) generator as one section. */
static cuzk_err emit(cuzk_params_writer *wr, const cuzk_g1_fixed *t1, const cuzk_g2_fixed *t2,
                     const cuzk_fr *k, size_t n, void *buf)
{
    CUZK_TRY(cuzk_params_writer_begin(wr, n));
    for (size_t i = 0; i < n; i += CHUNK) {
        size_t m = n - i < CHUNK ? n - i : CHUNK;
        if (t1) {
            cuzk_g1_fixed_mul_batch(buf, t1, k + i, m);
            CUZK_TRY(cuzk_params_writer_g1(wr, buf, m));
        } else {
            cuzk_g2_fixed_mul_batch(buf, t2, k + i, m);
            CUZK_TRY(cuzk_params_writer_g2(wr, buf, m));
        }
    }
    return CUZK_OK;
}

/* Scalars of the A or B query: the columns whose density bit is set. */
static cuzk_err select_dense(const cuzk_fr *u, const uint64_t *dens, size_t n, cuzk_fr **out,
                             size_t *count, const char *what)
{
    size_t c = cuzk_bitmap_count(dens, n), j = 0;
    cuzk_fr *s = malloc((c ? c : 1) * sizeof *s);
    if (!s)
        return cuzk_fail(CUZK_ENOMEM, "setup: out of memory for the %s query", what);
    for (size_t i = 0; i < n; i++) {
        int nz = !cuzk_fr_is_zero(&u[i]);
        if (cuzk_bitmap_get(dens, i)) {
            if (!nz) {
                free(s);
                return cuzk_fail(CUZK_EINTERNAL,
                                 "setup: %s polynomial of column %zu vanishes at tau; run "
                                 "setup again",
                                 what, i);
            }
            s[j++] = u[i];
        } else if (nz) {
            free(s);
            return cuzk_fail(CUZK_EFORMAT, "setup: %s density bitmap misses column %zu", what, i);
        }
    }
    *out = s;
    *count = c;
    return CUZK_OK;
}

static cuzk_err make_vk(cuzk_vk *vk, const cuzk_setup_secrets *sec)
{
    blst_p1 p1;
    blst_p2 p2;
    memset(vk, 0, sizeof *vk);
    cuzk_g1_mul(&p1, blst_p1_generator(), &sec->alpha);
    blst_p1_to_affine(&vk->alpha_g1, &p1);
    cuzk_g1_mul(&p1, blst_p1_generator(), &sec->beta);
    blst_p1_to_affine(&vk->beta_g1, &p1);
    cuzk_g1_mul(&p1, blst_p1_generator(), &sec->delta);
    blst_p1_to_affine(&vk->delta_g1, &p1);
    cuzk_g2_mul(&p2, blst_p2_generator(), &sec->beta);
    blst_p2_to_affine(&vk->beta_g2, &p2);
    cuzk_g2_mul(&p2, blst_p2_generator(), &sec->gamma);
    blst_p2_to_affine(&vk->gamma_g2, &p2);
    cuzk_g2_mul(&p2, blst_p2_generator(), &sec->delta);
    blst_p2_to_affine(&vk->delta_g2, &p2);
    return CUZK_OK;
}

/* h_j = (tau^2m - 1) / (2 m delta) * omega^j / (tau/g - omega^j), j < m: the
 * odd-coset basis of zkey files. The prover evaluates p = a*b - c at the
 * points g omega^j (g^2 = omega, g^m = -1), where p = h Z and Z = -2; h has
 * degree < m, so h(tau) = sum_j h(g omega^j) L_j(tau/g) with the Lagrange
 * basis L_j of the domain, and sum_j p_j h_j = h(tau) Z(tau) / delta. */
static cuzk_err emit_h_odd_coset(cuzk_params_writer *wr, const cuzk_g1_fixed *t1,
                                 const cuzk_setup_secrets *sec, const cuzk_fr *omega,
                                 const cuzk_fr *delta_inv, unsigned log_m, cuzk_fr *hs, void *buf)
{
    size_t m = (size_t)1 << log_m;
    cuzk_fr g, g_inv, tau_g, k, t, one;
    CUZK_TRY(cuzk_fr_root_of_unity_snarkjs(&g, log_m + 1));
    cuzk_fr_inv(&g_inv, &g);
    blst_fr_mul(&tau_g, &sec->tau, &g_inv);
    cuzk_fr_one(&one);
    cuzk_fr_pow_u64(&k, &sec->tau, 2 * (uint64_t)m);
    blst_fr_sub(&k, &k, &one);
    if (cuzk_fr_is_zero(&k))
        return cuzk_fail(CUZK_EINVAL, "setup: tau lies in the 2m-domain");
    cuzk_fr_from_u64(&t, 2 * (uint64_t)m);
    cuzk_fr_inv(&t, &t);
    blst_fr_mul(&k, &k, &t);
    blst_fr_mul(&k, &k, delta_inv);
    CUZK_TRY(cuzk_params_writer_begin(wr, m));
    for (size_t i = 0; i < m; i += CHUNK) {
        size_t n = m - i < CHUNK ? m - i : CHUNK;
        cuzk_fr w_i, c;
        cuzk_fr_pow_u64(&w_i, omega, i);
        cuzk_fr_vec_powers_mul(hs, NULL, omega, &w_i, n); /* omega^j */
        for (size_t j = 0; j < n; j++)
            blst_fr_sub(&hs[j], &tau_g, &hs[j]);
        CUZK_TRY(cuzk_fr_vec_inv(hs, n));
        blst_fr_mul(&c, &k, &w_i);
        cuzk_fr_vec_powers_mul(hs, hs, omega, &c, n);
        cuzk_g1_fixed_mul_batch(buf, t1, hs, n);
        CUZK_TRY(cuzk_params_writer_g1(wr, buf, n));
    }
    return CUZK_OK;
}

cuzk_err cuzk_groth16_setup(const cuzk_pce *pce, const char *params_path, const char *vk_path,
                            const cuzk_setup_secrets *secrets, cuzk_setup_timings *tm)
{
    return cuzk_groth16_setup_basis(pce, params_path, vk_path, secrets, CUZK_H_BELLPERSON, tm);
}

cuzk_err cuzk_groth16_setup_basis(const cuzk_pce *pce, const char *params_path, const char *vk_path,
                                  const cuzk_setup_secrets *secrets, cuzk_h_basis basis,
                                  cuzk_setup_timings *tm)
{
    cuzk_setup_timings tl;
    if (!tm)
        tm = &tl;
    memset(tm, 0, sizeof *tm);
    double t0 = cuzk_now(), t;

    cuzk_setup_secrets sec;
    if (secrets) {
        sec = *secrets;
    } else {
        CUZK_TRY(random_nonzero(&sec.tau));
        CUZK_TRY(random_nonzero(&sec.alpha));
        CUZK_TRY(random_nonzero(&sec.beta));
        CUZK_TRY(random_nonzero(&sec.gamma));
        CUZK_TRY(random_nonzero(&sec.delta));
    }
    if (cuzk_fr_is_zero(&sec.gamma) || cuzk_fr_is_zero(&sec.delta))
        return cuzk_fail(CUZK_EINVAL, "setup: gamma and delta must be non-zero");

    size_t m = (size_t)1 << pce->log_domain, nc = pce->n_constraints;
    size_t ni = pce->n_inputs, nv = pce->n_inputs + pce->n_aux;
    cuzk_fr omega, one, z, zm, gamma_inv, delta_inv, minv;
    /* snarkjs's convention also places the rows on its own roots (fr.h). */
    if (basis == CUZK_H_SNARKJS)
        CUZK_TRY(cuzk_fr_root_of_unity_snarkjs(&omega, pce->log_domain));
    else
        CUZK_TRY(cuzk_fr_root_of_unity(&omega, pce->log_domain));
    cuzk_fr_one(&one);
    cuzk_fr_pow_u64(&z, &sec.tau, m);
    blst_fr_sub(&z, &z, &one); /* Z(tau) = tau^m - 1 */
    if (cuzk_fr_is_zero(&z))
        return cuzk_fail(CUZK_EINVAL, "setup: tau lies in the evaluation domain");
    cuzk_fr_from_u64(&minv, m);
    cuzk_fr_inv(&minv, &minv);
    blst_fr_mul(&zm, &z, &minv);
    cuzk_fr_inv(&gamma_inv, &sec.gamma);
    cuzk_fr_inv(&delta_inv, &sec.delta);

    cuzk_err rc = CUZK_OK;
    cuzk_fr *lag = malloc((nc ? nc : 1) * sizeof *lag), *tmp = malloc((nc ? nc : 1) * sizeof *tmp);
    cuzk_fr *u = malloc(nv * sizeof *u), *v = malloc(nv * sizeof *v), *w = malloc(nv * sizeof *w);
    cuzk_fr *sel = NULL, *hs = NULL;
    void *buf = malloc(CHUNK * sizeof(blst_p2_affine));
    cuzk_g1_fixed t1 = {0};
    cuzk_g2_fixed t2 = {0};
    cuzk_vk vk;
    memset(&vk, 0, sizeof vk);
    cuzk_params_writer wr;
    int wr_open = 0;
    char *tmp_path = NULL, *vk_tmp = NULL;
    if (!lag || !tmp || !u || !v || !w || !buf) {
        rc =
            cuzk_fail(CUZK_ENOMEM, "setup: out of memory (%zu constraints, %zu variables)", nc, nv);
        goto out;
    }

    /* Lagrange basis at tau for the rows that exist. */
    t = cuzk_now();
    cuzk_fr_vec_powers_mul(tmp, NULL, &omega, NULL, nc);
    for (size_t j = 0; j < nc; j++)
        blst_fr_sub(&tmp[j], &sec.tau, &tmp[j]); /* tau - omega^j */
    if ((rc = cuzk_fr_vec_inv(tmp, nc)) != CUZK_OK)
        goto out;
    cuzk_fr_vec_powers_mul(lag, tmp, &omega, &zm, nc);
    free(tmp);
    tmp = NULL;
    tm->lagrange = cuzk_now() - t;

    t = cuzk_now();
    if ((rc = cuzk_pce_spmv_t(pce, lag, u, v, w)) != CUZK_OK)
        goto out;
    free(lag);
    lag = NULL;
    tm->qap = cuzk_now() - t;

    t = cuzk_now();
    if ((rc = cuzk_g1_fixed_init(&t1, blst_p1_generator(), G1_WBITS)) ||
        (rc = cuzk_g2_fixed_init(&t2, blst_p2_generator(), G2_WBITS)))
        goto out;
    make_vk(&vk, &sec);
    size_t plen = strlen(params_path) + 32;
    tmp_path = malloc(plen);
    if (!tmp_path) {
        rc = cuzk_fail(CUZK_ENOMEM, "setup: out of memory");
        goto out;
    }
    snprintf(tmp_path, plen, "%s.tmp-%d", params_path, (int)getpid());
    if ((rc = cuzk_params_writer_open(&wr, tmp_path, &vk)) != CUZK_OK)
        goto out;
    wr_open = 1;

    /* ic and l scalars, in place in w: (beta u + alpha v + w) / (gamma|delta) */
    for (size_t i = 0; i < nv; i++) {
        cuzk_fr x;
        blst_fr_mul(&x, &sec.beta, &u[i]);
        cuzk_fr y;
        blst_fr_mul(&y, &sec.alpha, &v[i]);
        blst_fr_add(&x, &x, &y);
        blst_fr_add(&x, &x, &w[i]);
        blst_fr_mul(&w[i], &x, i < ni ? &gamma_inv : &delta_inv);
        if (cuzk_fr_is_zero(&w[i])) {
            rc = cuzk_fail(CUZK_EINVAL,
                           "setup: %s variable %zu appears in no constraint (its %s point "
                           "would be the point at infinity)",
                           i < ni ? "input" : "aux", i < ni ? i : i - ni, i < ni ? "ic" : "l");
            goto out;
        }
    }
    vk.n_ic = ni;
    vk.ic = malloc(ni * sizeof *vk.ic);
    if (!vk.ic) {
        rc = cuzk_fail(CUZK_ENOMEM, "setup: out of memory");
        goto out;
    }
    cuzk_g1_fixed_mul_batch(vk.ic, &t1, w, ni);
    if ((rc = cuzk_params_writer_begin(&wr, ni)) || (rc = cuzk_params_writer_g1(&wr, vk.ic, ni)))
        goto out;
    tm->vk = cuzk_now() - t;

    /* h_i = tau^i Z(tau) / delta, i < m - 1, one chunk of scalars at a time. */
    t = cuzk_now();
    hs = malloc(CHUNK * sizeof *hs);
    if (!hs) {
        rc = cuzk_fail(CUZK_ENOMEM, "setup: out of memory");
        goto out;
    }
    if (basis == CUZK_H_SNARKJS) {
        if ((rc = emit_h_odd_coset(&wr, &t1, &sec, &omega, &delta_inv, pce->log_domain, hs, buf)))
            goto out;
        goto h_done;
    }
    if ((rc = cuzk_params_writer_begin(&wr, m - 1)))
        goto out;
    cuzk_fr hc, tau_pow;
    blst_fr_mul(&hc, &z, &delta_inv);
    for (size_t i = 0; i < m - 1; i += CHUNK) {
        size_t n = m - 1 - i < CHUNK ? m - 1 - i : CHUNK;
        cuzk_fr_pow_u64(&tau_pow, &sec.tau, i);
        cuzk_fr c;
        blst_fr_mul(&c, &hc, &tau_pow);
        cuzk_fr_vec_powers_mul(hs, NULL, &sec.tau, &c, n);
        cuzk_g1_fixed_mul_batch(buf, &t1, hs, n);
        if ((rc = cuzk_params_writer_g1(&wr, buf, n)))
            goto out;
    }
h_done:
    tm->h = cuzk_now() - t;

    t = cuzk_now();
    if ((rc = emit(&wr, &t1, NULL, w + ni, pce->n_aux, buf)))
        goto out;
    tm->l = cuzk_now() - t;

    size_t cnt;
    t = cuzk_now();
    if ((rc = select_dense(u, pce->a_density, nv, &sel, &cnt, "A")) ||
        (rc = emit(&wr, &t1, NULL, sel, cnt, buf)))
        goto out;
    free(sel);
    sel = NULL;
    tm->a = cuzk_now() - t;

    t = cuzk_now();
    if ((rc = select_dense(v, pce->b_density, nv, &sel, &cnt, "B")) ||
        (rc = emit(&wr, &t1, NULL, sel, cnt, buf)))
        goto out;
    tm->b_g1 = cuzk_now() - t;
    t = cuzk_now();
    if ((rc = emit(&wr, NULL, &t2, sel, cnt, buf)))
        goto out;
    tm->b_g2 = cuzk_now() - t;

    wr_open = 0;
    if ((rc = cuzk_params_writer_close(&wr)))
        goto out;
    if (rename(tmp_path, params_path) != 0) {
        rc = cuzk_fail(CUZK_EIO, "setup: cannot rename %s to %s", tmp_path, params_path);
        unlink(tmp_path);
        goto out;
    }
    if (vk_path) {
        size_t vlen = strlen(vk_path) + 32;
        vk_tmp = malloc(vlen);
        if (!vk_tmp) {
            rc = cuzk_fail(CUZK_ENOMEM, "setup: out of memory");
            goto out;
        }
        snprintf(vk_tmp, vlen, "%s.tmp-%d", vk_path, (int)getpid());
        if ((rc = cuzk_vk_write(vk_tmp, &vk)))
            goto out;
        if (rename(vk_tmp, vk_path) != 0) {
            rc = cuzk_fail(CUZK_EIO, "setup: cannot rename %s to %s", vk_tmp, vk_path);
            unlink(vk_tmp);
            goto out;
        }
    }
    tm->total = cuzk_now() - t0;
out:
    if (wr_open)
        cuzk_params_writer_abort(&wr);
    memset(&sec, 0, sizeof sec); /* forget the toxic waste */
    cuzk_vk_free(&vk);
    cuzk_g1_fixed_free(&t1);
    cuzk_g2_fixed_free(&t2);
    free(lag);
    free(tmp);
    free(u);
    free(v);
    free(w);
    free(sel);
    free(hs);
    free(buf);
    free(tmp_path);
    free(vk_tmp);
    return rc;
}
