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
 * "<path>.tmp-<pid>" and renamed only when complete.
 *
 * The multiplier is the CPU's comb (curve.h, chunks of 2^16 points) or the
 * GPU's (gpu.h cuzk_gpu_fixed, chunks of 2^22 G1 / 2^21 G2 points, two in
 * flight: the device computes chunk i+1 while this thread encodes and
 * writes chunk i). Affine points are unique, so both write the same bytes.
 * After every chunk the caller's progress callback may stop the setup
 * (ECANCELLED); the temporary files are then removed.
 * Every pass over the O(constraints) vectors runs on the thread pool. */
#include "cuzk/curve.h"
#include "cuzk/gpu.h"
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

/* The fixed-base multiplier of one setup: CPU comb tables, or a GPU and
 * its table of the group being written (G1 until b_g2, then G2). */
typedef struct {
    const char *name; /* "cpu" or "cuda" */
    cuzk_g1_fixed t1;
    cuzk_g2_fixed t2;
#ifdef CUZK_HAVE_CUDA
    cuzk_gpu *gpu;
    cuzk_gpu_fixed *f;
#endif
    size_t chunk; /* scalars per chunk */
    struct setup_progress *prog;
    void *buf;   /* CPU: one chunk of points */
    cuzk_fr *hs; /* one chunk of computed scalars */
} multiplier;

/* The caller's progress callback and the points written so far. */
typedef struct setup_progress {
    cuzk_progress_fn fn;
    void *ctx;
    uint64_t done, total;
} setup_progress;

/* add more points are written: tell the callback; ECANCELLED when it asks
 * to stop. */
static cuzk_err progress_add(setup_progress *p, uint64_t add)
{
    p->done += add;
    if (p->fn && p->fn(p->ctx, p->done, p->total))
        return cuzk_fail(CUZK_ECANCELLED, "setup: cancelled after %llu of %llu points",
                         (unsigned long long)p->done, (unsigned long long)p->total);
    return CUZK_OK;
}

/* Parse the backend choice: "cpu" (or NULL), "cuda", "cuda:N", "auto". */
static cuzk_err parse_backend(const cuzk_setup_options *o, int *cuda, int *automatic, int *device)
{
    const char *b = o && o->backend ? o->backend : "cpu";
    *device = o ? o->device : 0;
    *cuda = *automatic = 0;
    if (!strncmp(b, "cuda:", 5)) {
        char *end;
        long v = strtol(b + 5, &end, 10);
        if (b[5] < '0' || b[5] > '9' || *end || v > 1023)
            return cuzk_fail(CUZK_EINVAL, "setup: backend \"%s\": expected cuda:N with N 0..1023",
                             b);
        *device = (int)v;
        *cuda = 1;
    } else if (!strcmp(b, "cuda")) {
        *cuda = 1;
    } else if (!strcmp(b, "auto")) {
        *automatic = 1;
    } else if (strcmp(b, "cpu")) {
        return cuzk_fail(CUZK_EINVAL,
                         "setup: unknown backend \"%s\" (expected cpu, cuda, cuda:N or "
                         "auto)",
                         b);
    }
    if (*device < 0 || *device > 1023)
        return cuzk_fail(CUZK_EINVAL, "setup: GPU ordinal %d outside 0..1023", *device);
    return CUZK_OK;
}

static cuzk_err multiplier_open(multiplier *mc, const cuzk_setup_options *o)
{
    int cuda, automatic, device;
    memset(mc, 0, sizeof *mc);
    CUZK_TRY(parse_backend(o, &cuda, &automatic, &device));
#ifdef CUZK_HAVE_CUDA
    if (cuda || (automatic && cuzk_gpu_count() > device)) {
        cuzk_err e = cuzk_gpu_open(device, &mc->gpu);
        if (e == CUZK_OK || !automatic) {
            if (e)
                return cuzk_fail_ctx(e, "setup: backend cuda: ");
            mc->name = "cuda";
            return CUZK_OK;
        }
    }
#else
    (void)automatic;
    (void)device;
    if (cuda)
        return cuzk_fail(
            CUZK_EUNSUPPORTED,
            "setup: backend cuda: this build has no CUDA support (nvcc was not found)");
#endif
    mc->name = "cpu";
    return CUZK_OK;
}

static int multiplier_on_gpu(const multiplier *mc)
{
#ifdef CUZK_HAVE_CUDA
    return mc->gpu != NULL;
#else
    (void)mc;
    return 0;
#endif
}

/* Tables for the G1 sections and the chunk buffers. */
static cuzk_err multiplier_start(multiplier *mc)
{
#ifdef CUZK_HAVE_CUDA
    if (mc->gpu) {
        CUZK_TRY(cuzk_gpu_fixed_open_g1(mc->gpu, blst_p1_generator(), 0, &mc->f));
        mc->chunk = cuzk_gpu_fixed_chunk(mc->f);
    }
#endif
    if (!multiplier_on_gpu(mc)) {
        CUZK_TRY(cuzk_g1_fixed_init(&mc->t1, blst_p1_generator(), G1_WBITS));
        CUZK_TRY(cuzk_g2_fixed_init(&mc->t2, blst_p2_generator(), G2_WBITS));
        mc->chunk = CHUNK;
        if (!(mc->buf = malloc(CHUNK * sizeof(blst_p2_affine))))
            return cuzk_fail(CUZK_ENOMEM, "setup: out of memory");
    }
    if (!(mc->hs = malloc(mc->chunk * sizeof *mc->hs)))
        return cuzk_fail(CUZK_ENOMEM, "setup: out of memory");
    return CUZK_OK;
}

/* From here on the G2 table (the GPU keeps one table at a time). */
static cuzk_err multiplier_g2(multiplier *mc)
{
#ifdef CUZK_HAVE_CUDA
    if (mc->gpu) {
        cuzk_gpu_fixed_free(mc->f);
        mc->f = NULL;
        CUZK_TRY(cuzk_gpu_fixed_open_g2(mc->gpu, blst_p2_generator(), 0, &mc->f));
        if (cuzk_gpu_fixed_chunk(mc->f) > mc->chunk) {
            free(mc->hs);
            mc->chunk = cuzk_gpu_fixed_chunk(mc->f);
            if (!(mc->hs = malloc(mc->chunk * sizeof *mc->hs)))
                return cuzk_fail(CUZK_ENOMEM, "setup: out of memory");
        }
        mc->chunk = cuzk_gpu_fixed_chunk(mc->f);
    }
#else
    (void)mc;
#endif
    return CUZK_OK;
}

static void multiplier_close(multiplier *mc)
{
#ifdef CUZK_HAVE_CUDA
    cuzk_gpu_fixed_free(mc->f);
    cuzk_gpu_close(mc->gpu);
#endif
    cuzk_g1_fixed_free(&mc->t1);
    cuzk_g2_fixed_free(&mc->t2);
    free(mc->buf);
    free(mc->hs);
    memset(mc, 0, sizeof *mc);
}

/* G1 points of n scalars into out (small sections: ic). */
static cuzk_err multiplier_g1_array(multiplier *mc, blst_p1_affine *out, const cuzk_fr *k, size_t n)
{
#ifdef CUZK_HAVE_CUDA
    if (mc->gpu)
        return cuzk_gpu_fixed_mul(mc->f, out, k, n);
#endif
    cuzk_g1_fixed_mul_batch(out, &mc->t1, k, n);
    return CUZK_OK;
}

/* The scalars [i, i + n) of a section, n <= chunk: a pointer into an array,
 * or computed into mc->hs. */
typedef cuzk_err (*scalar_fn)(void *ctx, multiplier *mc, size_t i, size_t n, const cuzk_fr **out);

static cuzk_err scalars_of_array(void *ctx, multiplier *mc, size_t i, size_t n, const cuzk_fr **out)
{
    (void)mc;
    (void)n;
    *out = (const cuzk_fr *)ctx + i;
    return CUZK_OK;
}

/* One section of n points: begin, then chunk by chunk. */
static cuzk_err emit(multiplier *mc, cuzk_params_writer *wr, int g2, size_t n, scalar_fn get,
                     void *ctx)
{
    CUZK_TRY(cuzk_params_writer_begin(wr, n));
    size_t c = mc->chunk, nch = (n + c - 1) / c;
    const cuzk_fr *k;
#ifdef CUZK_HAVE_CUDA
    if (mc->gpu) {
        if (!nch)
            return CUZK_OK;
        CUZK_TRY(get(ctx, mc, 0, n < c ? n : c, &k));
        CUZK_TRY(cuzk_gpu_fixed_submit(mc->f, k, n < c ? n : c));
        for (size_t j = 0; j < nch; j++) {
            if (j + 1 < nch) {
                size_t lo = (j + 1) * c, m = n - lo < c ? n - lo : c;
                CUZK_TRY(get(ctx, mc, lo, m, &k));
                CUZK_TRY(cuzk_gpu_fixed_submit(mc->f, k, m));
            }
            const void *pts;
            size_t m;
            CUZK_TRY(cuzk_gpu_fixed_collect(mc->f, &pts, &m));
            CUZK_TRY(g2 ? cuzk_params_writer_g2(wr, pts, m) : cuzk_params_writer_g1(wr, pts, m));
            CUZK_TRY(progress_add(mc->prog, m));
        }
        return CUZK_OK;
    }
#endif
    for (size_t j = 0; j < nch; j++) {
        size_t lo = j * c, m = n - lo < c ? n - lo : c;
        CUZK_TRY(get(ctx, mc, lo, m, &k));
        if (g2) {
            cuzk_g2_fixed_mul_batch(mc->buf, &mc->t2, k, m);
            CUZK_TRY(cuzk_params_writer_g2(wr, mc->buf, m));
        } else {
            cuzk_g1_fixed_mul_batch(mc->buf, &mc->t1, k, m);
            CUZK_TRY(cuzk_params_writer_g1(wr, mc->buf, m));
        }
        CUZK_TRY(progress_add(mc->prog, m));
    }
    return CUZK_OK;
}

/* Scalars of the A or B query: the columns whose density bit is set, in
 * blocks of SEL_BLOCK columns whose output offsets come from popcounts. */
#define SEL_BLOCK ((size_t)1 << 16)
typedef struct {
    const cuzk_fr *u;
    const uint64_t *dens;
    size_t n;
    size_t *off; /* per block */
    cuzk_fr *s;
} select_ctx;

static int select_bad(void *vctx, uint64_t i)
{
    const select_ctx *c = vctx;
    return cuzk_bitmap_get(c->dens, (size_t)i) != !cuzk_fr_is_zero(&c->u[i]);
}

static void select_range(void *vctx, size_t lo, size_t hi, unsigned worker)
{
    (void)worker;
    select_ctx *c = vctx;
    for (size_t b = lo; b < hi; b++) {
        size_t j = c->off[b], end = (b + 1) * SEL_BLOCK < c->n ? (b + 1) * SEL_BLOCK : c->n;
        for (size_t i = b * SEL_BLOCK; i < end; i++)
            if (cuzk_bitmap_get(c->dens, i))
                c->s[j++] = c->u[i];
    }
}

static cuzk_err select_dense(const cuzk_fr *u, const uint64_t *dens, size_t n, cuzk_fr **out,
                             size_t *count, const char *what)
{
    select_ctx c = {u, dens, n, NULL, NULL};
    uint64_t bad = cuzk_parallel_first(n, 65536, select_bad, &c);
    if (bad != UINT64_MAX) {
        if (cuzk_bitmap_get(dens, (size_t)bad))
            return cuzk_fail(CUZK_EINTERNAL,
                             "setup: %s polynomial of column %zu vanishes at tau; run setup again",
                             what, (size_t)bad);
        return cuzk_fail(CUZK_EFORMAT, "setup: %s density bitmap misses column %zu", what,
                         (size_t)bad);
    }
    size_t nb = (n + SEL_BLOCK - 1) / SEL_BLOCK, total = 0;
    c.off = malloc((nb ? nb : 1) * sizeof *c.off);
    if (!c.off)
        return cuzk_fail(CUZK_ENOMEM, "setup: out of memory for the %s query", what);
    for (size_t b = 0; b < nb; b++) { /* SEL_BLOCK is a multiple of 64: whole words */
        c.off[b] = total;
        size_t lo = b * SEL_BLOCK, hi = lo + SEL_BLOCK < n ? lo + SEL_BLOCK : n;
        total += cuzk_bitmap_count(dens + lo / 64, hi - lo);
    }
    c.s = malloc((total ? total : 1) * sizeof *c.s);
    if (!c.s) {
        free(c.off);
        return cuzk_fail(CUZK_ENOMEM, "setup: out of memory for the %s query", what);
    }
    cuzk_parallel_for(nb, 1, select_range, &c);
    free(c.off);
    *out = c.s;
    *count = total;
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

/* h_i = tau^i Z(tau) / delta (bellperson's basis): c tau^i for a chunk. */
typedef struct {
    cuzk_fr tau, hc;
} h_powers;

static cuzk_err scalars_of_h(void *vctx, multiplier *mc, size_t i, size_t n, const cuzk_fr **out)
{
    h_powers *h = vctx;
    cuzk_fr c;
    cuzk_fr_pow_u64(&c, &h->tau, i);
    blst_fr_mul(&c, &c, &h->hc);
    cuzk_fr_vec_powers_mul(mc->hs, NULL, &h->tau, &c, n);
    *out = mc->hs;
    return CUZK_OK;
}

/* h_j = (tau^2m - 1) / (2 m delta) * omega^j / (tau/g - omega^j), j < m: the
 * odd-coset basis of zkey files. The prover evaluates p = a*b - c at the
 * points g omega^j (g^2 = omega, g^m = -1), where p = h Z and Z = -2; h has
 * degree < m, so h(tau) = sum_j h(g omega^j) L_j(tau/g) with the Lagrange
 * basis L_j of the domain, and sum_j p_j h_j = h(tau) Z(tau) / delta. */
typedef struct {
    cuzk_fr omega, tau_g, k;
} h_odd_coset;

static void sub_from_range(void *vctx, size_t lo, size_t hi, unsigned worker);

typedef struct {
    cuzk_fr *a;
    const cuzk_fr *x;
} sub_from_ctx;

static cuzk_err scalars_of_h_odd_coset(void *vctx, multiplier *mc, size_t i, size_t n,
                                       const cuzk_fr **out)
{
    h_odd_coset *h = vctx;
    cuzk_fr *hs = mc->hs, w_i, c;
    cuzk_fr_pow_u64(&w_i, &h->omega, i);
    cuzk_fr_vec_powers_mul(hs, NULL, &h->omega, &w_i, n); /* omega^j */
    sub_from_ctx sc = {hs, &h->tau_g};
    cuzk_parallel_for(n, 4096, sub_from_range, &sc); /* tau/g - omega^j */
    CUZK_TRY(cuzk_fr_vec_inv(hs, n));
    blst_fr_mul(&c, &h->k, &w_i);
    cuzk_fr_vec_powers_mul(hs, hs, &h->omega, &c, n);
    *out = hs;
    return CUZK_OK;
}

static cuzk_err h_odd_coset_init(h_odd_coset *h, const cuzk_setup_secrets *sec,
                                 const cuzk_fr *omega, const cuzk_fr *delta_inv, unsigned log_m)
{
    size_t m = (size_t)1 << log_m;
    cuzk_fr g, g_inv, t, one;
    CUZK_TRY(cuzk_fr_root_of_unity_snarkjs(&g, log_m + 1));
    cuzk_fr_inv(&g_inv, &g);
    h->omega = *omega;
    blst_fr_mul(&h->tau_g, &sec->tau, &g_inv);
    cuzk_fr_one(&one);
    cuzk_fr_pow_u64(&h->k, &sec->tau, 2 * (uint64_t)m);
    blst_fr_sub(&h->k, &h->k, &one);
    if (cuzk_fr_is_zero(&h->k))
        return cuzk_fail(CUZK_EINVAL, "setup: tau lies in the 2m-domain");
    cuzk_fr_from_u64(&t, 2 * (uint64_t)m);
    cuzk_fr_inv(&t, &t);
    blst_fr_mul(&h->k, &h->k, &t);
    blst_fr_mul(&h->k, &h->k, delta_inv);
    return CUZK_OK;
}

/* a[j] = x - a[j] */
static void sub_from_range(void *vctx, size_t lo, size_t hi, unsigned worker)
{
    (void)worker;
    sub_from_ctx *c = vctx;
    for (size_t j = lo; j < hi; j++)
        blst_fr_sub(&c->a[j], c->x, &c->a[j]);
}

/* ic and l scalars, in place in w: (beta u + alpha v + w) / (gamma|delta). */
typedef struct {
    const cuzk_fr *u, *v;
    cuzk_fr *w;
    size_t ni;
    cuzk_fr alpha, beta, gamma_inv, delta_inv;
} icl_ctx;

static void icl_range(void *vctx, size_t lo, size_t hi, unsigned worker)
{
    (void)worker;
    icl_ctx *c = vctx;
    for (size_t i = lo; i < hi; i++) {
        cuzk_fr x, y;
        blst_fr_mul(&x, &c->beta, &c->u[i]);
        blst_fr_mul(&y, &c->alpha, &c->v[i]);
        blst_fr_add(&x, &x, &y);
        blst_fr_add(&x, &x, &c->w[i]);
        blst_fr_mul(&c->w[i], &x, i < c->ni ? &c->gamma_inv : &c->delta_inv);
    }
}

static int icl_zero(void *vctx, uint64_t i)
{
    return cuzk_fr_is_zero(&((icl_ctx *)vctx)->w[i]);
}

cuzk_err cuzk_groth16_setup_check(const cuzk_setup_options *opt)
{
    multiplier mc;
    if (opt && opt->basis != CUZK_H_BELLPERSON && opt->basis != CUZK_H_SNARKJS)
        return cuzk_fail(CUZK_EINVAL, "setup: unknown H basis %d", (int)opt->basis);
    CUZK_TRY(multiplier_open(&mc, opt));
    multiplier_close(&mc);
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
    cuzk_setup_options o = {.basis = basis, .backend = "cpu"};
    return cuzk_groth16_setup_ex(pce, params_path, vk_path, secrets, &o, tm);
}

cuzk_err cuzk_groth16_setup_ex(const cuzk_pce *pce, const char *params_path, const char *vk_path,
                               const cuzk_setup_secrets *secrets, const cuzk_setup_options *opt,
                               cuzk_setup_timings *tm)
{
    cuzk_setup_timings tl;
    if (!tm)
        tm = &tl;
    memset(tm, 0, sizeof *tm);
    double t0 = cuzk_now(), t;
    cuzk_params *mem = opt ? opt->params_out : NULL;
    if (!pce)
        return cuzk_fail(CUZK_EINVAL, "setup: circuit is NULL");
    if (!params_path == !mem)
        return cuzk_fail(CUZK_EINVAL, "setup: give %s",
                         mem ? "either params_path or params_out, "
                               "not both"
                             : "params_path or params_out");
    cuzk_h_basis basis = opt ? opt->basis : CUZK_H_BELLPERSON;
    if (basis != CUZK_H_BELLPERSON && basis != CUZK_H_SNARKJS)
        return cuzk_fail(CUZK_EINVAL, "setup: unknown H basis %d", (int)basis);
    int cuda, automatic, device;
    CUZK_TRY(parse_backend(opt, &cuda, &automatic, &device));

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

    size_t n_a = cuzk_bitmap_count(pce->a_density, nv), n_b = cuzk_bitmap_count(pce->b_density, nv);
    setup_progress prog = {opt ? opt->progress : NULL, opt ? opt->progress_ctx : NULL, 0, 0};
    prog.total = ni + (basis == CUZK_H_SNARKJS ? m : m - 1) + pce->n_aux + n_a + 2 * (uint64_t)n_b;
    multiplier mc;
    cuzk_err rc = progress_add(&prog, 0);
    if (rc || (rc = multiplier_open(&mc, opt)))
        return rc;
    mc.prog = &prog;
    tm->backend = mc.name;
    cuzk_fr *lag = malloc((nc ? nc : 1) * sizeof *lag), *tmp = malloc((nc ? nc : 1) * sizeof *tmp);
    cuzk_fr *u = malloc(nv * sizeof *u), *v = malloc(nv * sizeof *v), *w = malloc(nv * sizeof *w);
    cuzk_fr *sel = NULL;
    cuzk_vk vk;
    memset(&vk, 0, sizeof vk);
    cuzk_params_writer wr;
    int wr_open = 0;
    char *tmp_path = NULL, *vk_tmp = NULL;
    if (!lag || !tmp || !u || !v || !w) {
        rc =
            cuzk_fail(CUZK_ENOMEM, "setup: out of memory (%zu constraints, %zu variables)", nc, nv);
        goto out;
    }

    /* Lagrange basis at tau for the rows that exist. */
    t = cuzk_now();
    cuzk_fr_vec_powers_mul(tmp, NULL, &omega, NULL, nc);
    sub_from_ctx sc = {tmp, &sec.tau};
    cuzk_parallel_for(nc, 4096, sub_from_range, &sc); /* tau - omega^j */
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
    if ((rc = progress_add(&prog, 0)))
        goto out;

    t = cuzk_now();
    if ((rc = multiplier_start(&mc)))
        goto out;
    make_vk(&vk, &sec);
    if (mem) {
        if ((rc = cuzk_params_writer_open_mem(&wr, mem, &vk)) != CUZK_OK)
            goto out;
    } else {
        size_t plen = strlen(params_path) + 32;
        tmp_path = malloc(plen);
        if (!tmp_path) {
            rc = cuzk_fail(CUZK_ENOMEM, "setup: out of memory");
            goto out;
        }
        snprintf(tmp_path, plen, "%s.tmp-%d", params_path, (int)getpid());
        if ((rc = cuzk_params_writer_open(&wr, tmp_path, &vk)) != CUZK_OK)
            goto out;
    }
    wr_open = 1;

    icl_ctx ic = {u, v, w, ni, sec.alpha, sec.beta, gamma_inv, delta_inv};
    cuzk_parallel_for(nv, 4096, icl_range, &ic);
    uint64_t zero_at = cuzk_parallel_first(nv, 4096, icl_zero, &ic);
    if (zero_at != UINT64_MAX) {
        size_t i = (size_t)zero_at;
        rc = cuzk_fail(CUZK_EINVAL,
                       "setup: %s variable %zu appears in no constraint (its %s point "
                       "would be the point at infinity)",
                       i < ni ? "input" : "aux", i < ni ? i : i - ni, i < ni ? "ic" : "l");
        goto out;
    }
    vk.n_ic = ni;
    vk.ic = malloc(ni * sizeof *vk.ic);
    if (!vk.ic) {
        rc = cuzk_fail(CUZK_ENOMEM, "setup: out of memory");
        goto out;
    }
    if ((rc = multiplier_g1_array(&mc, vk.ic, w, ni)) || (rc = cuzk_params_writer_begin(&wr, ni)) ||
        (rc = cuzk_params_writer_g1(&wr, vk.ic, ni)) || (rc = progress_add(&prog, ni)))
        goto out;
    tm->vk = cuzk_now() - t;

    t = cuzk_now();
    if (basis == CUZK_H_SNARKJS) {
        h_odd_coset hc;
        if ((rc = h_odd_coset_init(&hc, &sec, &omega, &delta_inv, pce->log_domain)) ||
            (rc = emit(&mc, &wr, 0, m, scalars_of_h_odd_coset, &hc)))
            goto out;
    } else {
        h_powers hp = {sec.tau, {{0}}};
        blst_fr_mul(&hp.hc, &z, &delta_inv);
        if ((rc = emit(&mc, &wr, 0, m - 1, scalars_of_h, &hp)))
            goto out;
    }
    tm->h = cuzk_now() - t;

    t = cuzk_now();
    if ((rc = emit(&mc, &wr, 0, pce->n_aux, scalars_of_array, w + ni)))
        goto out;
    tm->l = cuzk_now() - t;

    size_t cnt;
    t = cuzk_now();
    if ((rc = select_dense(u, pce->a_density, nv, &sel, &cnt, "A")) ||
        (rc = emit(&mc, &wr, 0, cnt, scalars_of_array, sel)))
        goto out;
    free(sel);
    sel = NULL;
    tm->a = cuzk_now() - t;

    t = cuzk_now();
    if ((rc = select_dense(v, pce->b_density, nv, &sel, &cnt, "B")) ||
        (rc = emit(&mc, &wr, 0, cnt, scalars_of_array, sel)))
        goto out;
    tm->b_g1 = cuzk_now() - t;
    t = cuzk_now();
    if ((rc = multiplier_g2(&mc)) || (rc = emit(&mc, &wr, 1, cnt, scalars_of_array, sel)))
        goto out;
    tm->b_g2 = cuzk_now() - t;

    wr_open = 0;
    if ((rc = cuzk_params_writer_close(&wr)))
        goto out;
    if ((rc = progress_add(&prog, 0))) { /* the last chance to stop: nothing published yet */
        if (tmp_path)
            unlink(tmp_path);
        else
            cuzk_params_free(mem);
        goto out;
    }
    if (tmp_path && rename(tmp_path, params_path) != 0) {
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
    multiplier_close(&mc);
    free(lag);
    free(tmp);
    free(u);
    free(v);
    free(w);
    free(sel);
    free(tmp_path);
    free(vk_tmp);
    return rc;
}
