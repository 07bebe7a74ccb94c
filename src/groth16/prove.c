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
 * optional density for L (zkey files keep points at infinity).
 *
 * cuzk_groth16_prove_batch proves several witnesses of one circuit with the
 * SpMV of the next proof on a second thread while the backend works on the
 * current one (below). */
#include "cuzk/groth16.h"
#include "cuzk/curve.h"
#include "cuzk/threads.h"
#include "cuzk/util.h"

#include <pthread.h>
#include <stdio.h>
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

cuzk_groth16_shape cuzk_groth16_shape_of(const cuzk_pce *pce)
{
    return (cuzk_groth16_shape){.log_m = pce->log_domain,
                                .n_inputs = pce->n_inputs,
                                .n_aux = pce->n_aux,
                                .a_density = pce->a_density,
                                .b_density = pce->b_density,
                                .l_density = NULL,
                                .a_count = pce->a_input_count + pce->a_aux_count,
                                .b_count = pce->b_input_count + pce->b_aux_count};
}

/* The parameters' counts against the circuit's: the shape's popcounts when
 * it has them (a PCE's, taken when it was loaded), else the bitmaps'. */
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
    int known = sh->a_count || sh->b_count;
    uint64_t na = known ? sh->a_count : cuzk_bitmap_count(sh->a_density, n_vars);
    uint64_t nb = known ? sh->b_count : cuzk_bitmap_count(sh->b_density, n_vars);
    struct {
        const char *name;
        uint64_t have, want;
    } c[] = {
        {"ic", p->vk.n_ic, sh->n_inputs},
        {"l", p->n_l, sh->l_density ? cuzk_bitmap_count(sh->l_density, sh->n_aux) : sh->n_aux},
        {"a", p->n_a, na},
        {"b_g1", p->n_b_g1, nb},
        {"b_g2", p->n_b_g2, nb},
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

/* a, b, c = A.w, B.w, C.w, and every row checked (a*b == c). a, b, c must
 * be zero beyond the constraints (the SpMV writes only the rows). */
cuzk_err cuzk_groth16_abc(const cuzk_pce *pce, const cuzk_fr *w, cuzk_fr *a, cuzk_fr *b, cuzk_fr *c)
{
    CUZK_TRY(cuzk_pce_spmv(pce, w, a, b, c));
    check_ctx cc = {a, b, c};
    uint64_t bad = cuzk_parallel_first(pce->n_constraints, 4096, row_unsatisfied, &cc);
    if (bad != UINT64_MAX)
        return cuzk_fail(CUZK_EINVAL, "witness does not satisfy constraint %llu",
                         (unsigned long long)bad);
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
    cuzk_groth16_shape sh = cuzk_groth16_shape_of(pce);
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
    if ((rc = cuzk_groth16_abc(pce, w, a, b, c)) != CUZK_OK)
        goto out;
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

/* ---- many proofs of one circuit, CPU and backend overlapped ----
 *
 * A feeder thread runs the SpMV and witness check of proof i + 1 into one
 * of two buffer sets while the calling thread runs the backend part of
 * proof i on the other; slot states go free -> ready -> free under one
 * mutex. The thread pool serialises the two threads' parallel sections, but
 * the backend thread mostly waits on its device, so the CPU stays busy. */
typedef struct {
    const cuzk_pce *pce;
    const cuzk_fr *const *w;
    size_t n;
    cuzk_fr *abc[2][3];
    int ready[2];       /* slot holds the a, b, c of proof next_use[slot] */
    size_t produced;    /* proofs whose SpMV is done (or failed) */
    size_t consumed;    /* proofs whose backend part is done */
    int stop;           /* the consumer gave up: the feeder stops */
    cuzk_err feed_rc;   /* first SpMV error, for proof `produced` */
    char feed_msg[256]; /* its message (error messages are per thread) */
    double *spmv_s;     /* per proof */
    pthread_mutex_t mu;
    pthread_cond_t cv;
} batch;

static void *batch_feeder(void *arg)
{
    batch *bt = arg;
    size_t m = (size_t)1 << bt->pce->log_domain, nc = bt->pce->n_constraints;
    for (size_t i = 0; i < bt->n; i++) {
        int slot = (int)(i & 1);
        pthread_mutex_lock(&bt->mu);
        while (!bt->stop && bt->ready[slot])
            pthread_cond_wait(&bt->cv, &bt->mu);
        int stop = bt->stop;
        pthread_mutex_unlock(&bt->mu);
        if (stop)
            return NULL;
        /* The backend used the slot as scratch: clear the padding again. */
        for (int k = 0; k < 3; k++)
            memset(bt->abc[slot][k] + nc, 0, (m - nc) * sizeof(cuzk_fr));
        double t = cuzk_now();
        cuzk_err rc = cuzk_groth16_abc(bt->pce, bt->w[i], bt->abc[slot][0], bt->abc[slot][1],
                                       bt->abc[slot][2]);
        pthread_mutex_lock(&bt->mu);
        bt->spmv_s[i] = cuzk_now() - t;
        if (rc) {
            bt->feed_rc = rc;
            snprintf(bt->feed_msg, sizeof bt->feed_msg, "%s", cuzk_errmsg());
        } else {
            bt->ready[slot] = 1;
        }
        bt->produced = i + 1;
        pthread_cond_broadcast(&bt->cv);
        pthread_mutex_unlock(&bt->mu);
        if (rc)
            return NULL;
    }
    return NULL;
}

cuzk_err cuzk_groth16_prove_batch(cuzk_backend *be, const cuzk_params *params, const cuzk_pce *pce,
                                  const cuzk_fr *const *w, size_t n, const cuzk_fr *r,
                                  const cuzk_fr *s, cuzk_proof *out, cuzk_prove_timings *tm,
                                  size_t *n_done)
{
    if (n_done)
        *n_done = 0;
    if (!be || !params || !pce || (!w && n) || (!out && n))
        return cuzk_fail(CUZK_EINVAL, "prove batch: NULL argument");
    if (n == 0)
        return CUZK_OK;
    for (size_t i = 0; i < n; i++)
        if (!w[i])
            return cuzk_fail(CUZK_EINVAL, "prove batch: witness %zu is NULL", i);
    cuzk_groth16_shape sh = cuzk_groth16_shape_of(pce);
    cuzk_h_basis basis;
    CUZK_TRY(check_counts(params, &sh, &basis));
    size_t m = (size_t)1 << pce->log_domain;
    batch bt;
    memset(&bt, 0, sizeof bt);
    bt.pce = pce;
    bt.w = w;
    bt.n = n;
    bt.spmv_s = calloc(n, sizeof *bt.spmv_s);
    cuzk_err rc = CUZK_OK;
    int nslots = n > 1 ? 2 : 1;
    for (int sl = 0; sl < nslots && bt.spmv_s; sl++)
        for (int k = 0; k < 3; k++)
            if (!(bt.abc[sl][k] = calloc(m, sizeof(cuzk_fr))))
                rc = cuzk_fail(CUZK_ENOMEM, "prove batch: cannot allocate %d x 3 x %zu elements",
                               nslots, m);
    if (!bt.spmv_s && !rc)
        rc = cuzk_fail(CUZK_ENOMEM, "prove batch: out of memory");
    pthread_t th;
    int started = 0, inited = 0;
    if (!rc) {
        inited = 1;
        pthread_mutex_init(&bt.mu, NULL);
        pthread_cond_init(&bt.cv, NULL);
        if (pthread_create(&th, NULL, batch_feeder, &bt) != 0)
            rc = cuzk_fail(CUZK_EINTERNAL, "prove batch: cannot start the SpMV thread");
        else
            started = 1;
    }
    size_t done = 0;
    for (size_t i = 0; i < n && !rc; i++) {
        int slot = (int)(i & 1);
        double t0 = cuzk_now();
        pthread_mutex_lock(&bt.mu);
        while (!bt.ready[slot] && bt.produced <= i)
            pthread_cond_wait(&bt.cv, &bt.mu);
        int ok = bt.ready[slot];
        pthread_mutex_unlock(&bt.mu);
        if (!ok) { /* the feeder failed on proof i */
            rc = cuzk_fail(bt.feed_rc, "proof %zu of the batch: %s", i, bt.feed_msg);
            break;
        }
        cuzk_prove_timings tl, *t = tm ? &tm[i] : &tl;
        rc =
            cuzk_groth16_prove_abc(be, params, &sh, w[i], bt.abc[slot][0], bt.abc[slot][1],
                                   bt.abc[slot][2], r ? &r[i] : NULL, s ? &s[i] : NULL, &out[i], t);
        if (rc) {
            char msg[256];
            snprintf(msg, sizeof msg, "%s", cuzk_errmsg());
            rc = cuzk_fail(rc, "proof %zu of the batch: %s", i, msg);
        }
        pthread_mutex_lock(&bt.mu);
        t->spmv = bt.spmv_s[i];
        bt.ready[slot] = 0;
        pthread_cond_broadcast(&bt.cv);
        pthread_mutex_unlock(&bt.mu);
        /* Wall time from this proof's turn; its SpMV overlapped the last. */
        t->total = cuzk_now() - t0;
        if (!rc)
            done = i + 1;
    }
    if (started) {
        pthread_mutex_lock(&bt.mu);
        bt.stop = 1;
        pthread_cond_broadcast(&bt.cv);
        pthread_mutex_unlock(&bt.mu);
        pthread_join(th, NULL);
    }
    if (inited) {
        pthread_mutex_destroy(&bt.mu);
        pthread_cond_destroy(&bt.cv);
    }
    for (int sl = 0; sl < 2; sl++)
        for (int k = 0; k < 3; k++)
            free(bt.abc[sl][k]);
    free(bt.spmv_s);
    if (n_done)
        *n_done = done;
    return rc;
}

/* Adds the device time of the backend's last operation. */
static void add_device_time(cuzk_backend *be, double *copy, double *kernel)
{
    double c = 0, k = 0;
    if (be->ops->last_device_time)
        be->ops->last_device_time(be, &c, &k);
    *copy += c;
    *kernel += k;
}

/* The five query arrays: host address, count, point size. */
static void query_arrays(const cuzk_params *p, const void *host[5], size_t n[5], size_t elem[5])
{
    const void *h[5] = {p->h, p->l, p->a, p->b_g1, p->b_g2};
    size_t c[5] = {p->n_h, p->n_l, p->n_a, p->n_b_g1, p->n_b_g2};
    for (int i = 0; i < 5; i++) {
        host[i] = h[i];
        n[i] = c[i];
        elem[i] = i < 4 ? sizeof(blst_p1_affine) : sizeof(blst_p2_affine);
    }
}

/* Before the witness MSM over query array cur (1 l, 2 a, 3 b_g1, 4 b_g2) of
 * `entries` entries: a device backend may move the next array its device
 * lacks there meanwhile. The soonest needed goes first: a later array
 * waits while an earlier one is missing. */
static void bases_ahead(cuzk_backend *be, const cuzk_params *params, int cur, size_t entries)
{
    if (!be->ops->bases_ahead)
        return;
    const void *host[5];
    size_t n[5], elem[5];
    query_arrays(params, host, n, elem);
    for (int i = cur + 1; i < 5; i++)
        if (be->ops->bases_ahead(be, host[i], n[i], elem[i], entries) != 0)
            return;
}

/* The MSMs whose scalars come from the witness: L, A, B_G1, B_G2. t0: when
 * the L phase started. */
static cuzk_err msm_witness(cuzk_backend *be, const cuzk_params *params,
                            const cuzk_groth16_shape *sh, const cuzk_fr *w, size_t n_vars,
                            cuzk_prove_timings *tm, blst_p1 *l_sum, blst_p1 *a_sum, blst_p1 *b1_sum,
                            blst_p2 *b2_sum, double t0)
{
    cuzk_err rc;
    double t = t0;
    bases_ahead(be, params, 1, sh->n_aux);
    if ((rc = be->ops->msm_g1(be, l_sum, params->l, params->n_l, w + sh->n_inputs, sh->l_density,
                              sh->n_aux, &tm->st_l)))
        return rc;
    tm->msm_l = cuzk_now() - t;
    add_device_time(be, &tm->dev_msm_copy, &tm->dev_msm_kernel);
    t = cuzk_now();
    bases_ahead(be, params, 2, n_vars);
    if ((rc = be->ops->msm_g1(be, a_sum, params->a, params->n_a, w, sh->a_density, n_vars,
                              &tm->st_a)))
        return rc;
    tm->msm_a = cuzk_now() - t;
    add_device_time(be, &tm->dev_msm_copy, &tm->dev_msm_kernel);
    t = cuzk_now();
    bases_ahead(be, params, 3, n_vars);
    if ((rc = be->ops->msm_g1(be, b1_sum, params->b_g1, params->n_b_g1, w, sh->b_density, n_vars,
                              &tm->st_b_g1)))
        return rc;
    tm->msm_b_g1 = cuzk_now() - t;
    add_device_time(be, &tm->dev_msm_copy, &tm->dev_msm_kernel);
    t = cuzk_now();
    if ((rc = be->ops->msm_g2(be, b2_sum, params->b_g2, params->n_b_g2, w, sh->b_density, n_vars,
                              NULL)))
        return rc;
    tm->msm_b_g2 = cuzk_now() - t;
    add_device_time(be, &tm->dev_msm_copy, &tm->dev_msm_kernel);
    return CUZK_OK;
}

cuzk_err cuzk_groth16_params_to_device(cuzk_backend *be, const cuzk_params *params)
{
    if (!be->ops->pin_bases)
        return cuzk_fail(CUZK_EUNSUPPORTED, "backend %s cannot keep parameters on a device",
                         cuzk_backend_name(be));
    const void *host[5];
    size_t n[5], elem[5];
    query_arrays(params, host, n, elem);
    for (int i = 0; i < 5; i++)
        CUZK_TRY(be->ops->pin_bases(be, host[i], n[i], elem[i]));
    return CUZK_OK;
}

void cuzk_groth16_device_forget(cuzk_backend *be)
{
    if (be->ops->forget_bases)
        be->ops->forget_bases(be);
}

int cuzk_groth16_params_on_device(cuzk_backend *be, const cuzk_params *params)
{
    if (!be->ops->bases_pinned)
        return 0;
    const void *host[5];
    size_t n[5], elem[5];
    query_arrays(params, host, n, elem);
    for (int i = 0; i < 5; i++)
        if (!be->ops->bases_pinned(be, host[i], n[i], elem[i]))
            return 0;
    return 1;
}

/* What every proof checks first (counts, w[0], parameters present on this
 * backend), then r and s: given or random. */
static cuzk_err prove_start(cuzk_backend *be, const cuzk_params *params,
                            const cuzk_groth16_shape *sh, const cuzk_fr *w, const cuzk_fr *r_in,
                            const cuzk_fr *s_in, cuzk_fr *r, cuzk_fr *s, cuzk_h_basis *basis)
{
    CUZK_TRY(check_counts(params, sh, basis));
    cuzk_fr one;
    cuzk_fr_one(&one);
    if (!cuzk_fr_eq(&w[0], &one))
        return cuzk_fail(CUZK_EINVAL, "witness: w[0] must be the constant 1");
    if (params->host_released && !cuzk_groth16_params_on_device(be, params))
        return cuzk_fail(CUZK_EINVAL,
                         "the parameters' host copy was released: they exist only on the "
                         "devices that keep them, and backend %s (device %d) does not",
                         cuzk_backend_name(be), cuzk_backend_device(be));
    if (r_in)
        *r = *r_in;
    else
        CUZK_TRY(cuzk_fr_random(r));
    if (s_in)
        *s = *s_in;
    else
        CUZK_TRY(cuzk_fr_random(s));
    return CUZK_OK;
}

static cuzk_err prove_finish(cuzk_backend *be, const cuzk_params *params,
                             const cuzk_groth16_shape *sh, cuzk_h_basis basis, const cuzk_fr *w,
                             const cuzk_fr *h, int resident, const cuzk_fr *r, const cuzk_fr *s,
                             cuzk_proof *out, cuzk_prove_timings *tm);

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
    cuzk_fr r, s;
    CUZK_TRY(prove_start(be, params, sh, w, r_in, s_in, &r, &s, &basis));
    size_t n_vars = sh->n_inputs + sh->n_aux;
    cuzk_err rc;
    /* A device backend may keep h on the device for the H MSM and upload
     * the witness while H runs (compute_h_resident); a is scratch after. */
    int resident = basis == CUZK_H_BELLPERSON && be->ops->compute_h_resident && be->ops->msm_h;
    t = cuzk_now();
    if (resident)
        rc = be->ops->compute_h_resident(be, sh->log_m, a, b, c, w, n_vars);
    else if (basis == CUZK_H_BELLPERSON)
        rc = be->ops->compute_h(be, sh->log_m, a, b, c);
    else if (be->ops->compute_h_odd_coset)
        rc = be->ops->compute_h_odd_coset(be, sh->log_m, a, b, c);
    else
        rc = cuzk_h_odd_coset_cpu(sh->log_m, a, b, c);
    if (rc)
        return rc;
    tm->h = cuzk_now() - t;
    add_device_time(be, &tm->dev_h_copy, &tm->dev_h_kernel);
    rc = prove_finish(be, params, sh, basis, w, a, resident, &r, &s, out, tm);
    tm->total = cuzk_now() - t_start;
    return rc;
}

/* The MSMs after H (h: the host array of H's result, or the key a device
 * backend kept it under; resident: the witness is on the device already)
 * and the proof's assembly. */
static cuzk_err prove_finish(cuzk_backend *be, const cuzk_params *params,
                             const cuzk_groth16_shape *sh, cuzk_h_basis basis, const cuzk_fr *w,
                             const cuzk_fr *h, int resident, const cuzk_fr *r, const cuzk_fr *s,
                             cuzk_proof *out, cuzk_prove_timings *tm)
{
    size_t n_vars = sh->n_inputs + sh->n_aux;
    cuzk_err rc;
    double t;
    blst_p1 h_sum, l_sum, a_sum, b1_sum;
    blst_p2 b2_sum;
    t = cuzk_now();
    if (basis == CUZK_H_BELLPERSON && be->ops->msm_h)
        rc = be->ops->msm_h(be, &h_sum, params->h, params->n_h, h, params->n_h);
    else
        rc = be->ops->msm_g1(be, &h_sum, params->h, params->n_h, h, NULL, params->n_h, NULL);
    if (rc) {
        if (resident && be->ops->witness_end)
            be->ops->witness_end(be);
        return rc;
    }
    tm->msm_h = cuzk_now() - t;
    add_device_time(be, &tm->dev_msm_copy, &tm->dev_msm_kernel);
    /* The L, A and B MSMs all take their scalars from w: a device backend
     * uploads it once (the time counts towards L), unless H did already. */
    t = cuzk_now();
    if (!resident && be->ops->witness_begin) {
        rc = be->ops->witness_begin(be, w, n_vars);
        if (rc && rc != CUZK_ENOMEM)
            return rc;
        if (!rc)
            add_device_time(be, &tm->dev_msm_copy, &tm->dev_msm_kernel);
    }
    rc = msm_witness(be, params, sh, w, n_vars, tm, &l_sum, &a_sum, &b1_sum, &b2_sum, t);
    if (be->ops->witness_end)
        be->ops->witness_end(be);
    if (rc)
        return rc;

    const cuzk_vk *vk = &params->vk;
    blst_p1 g_a, g_c, tmp;
    blst_p2 g_b, tmp2;
    /* A = r delta + alpha + sumA */
    g1_mul_aff(&g_a, &vk->delta_g1, r);
    blst_p1_add_or_double_affine(&g_a, &g_a, &vk->alpha_g1);
    blst_p1_add_or_double(&g_a, &g_a, &a_sum);
    /* B = s delta + beta + sumB2 */
    blst_p2_from_affine(&tmp2, &vk->delta_g2);
    cuzk_g2_mul(&g_b, &tmp2, s);
    blst_p2_add_or_double_affine(&g_b, &g_b, &vk->beta_g2);
    blst_p2_add_or_double(&g_b, &g_b, &b2_sum);
    /* C = rs delta + s alpha + r beta + s sumA + r sumB1 + H + L */
    cuzk_fr rs;
    blst_fr_mul(&rs, r, s);
    g1_mul_aff(&g_c, &vk->delta_g1, &rs);
    g1_mul_aff(&tmp, &vk->alpha_g1, s);
    blst_p1_add_or_double(&g_c, &g_c, &tmp);
    g1_mul_aff(&tmp, &vk->beta_g1, r);
    blst_p1_add_or_double(&g_c, &g_c, &tmp);
    cuzk_g1_mul(&tmp, &a_sum, s);
    blst_p1_add_or_double(&g_c, &g_c, &tmp);
    cuzk_g1_mul(&tmp, &b1_sum, r);
    blst_p1_add_or_double(&g_c, &g_c, &tmp);
    blst_p1_add_or_double(&g_c, &g_c, &h_sum);
    blst_p1_add_or_double(&g_c, &g_c, &l_sum);

    blst_p1_to_affine(&out->a, &g_a);
    blst_p2_to_affine(&out->b, &g_b);
    blst_p1_to_affine(&out->c, &g_c);
    return CUZK_OK;
}

cuzk_err cuzk_groth16_prove_packed(cuzk_backend *be, const cuzk_params *params, const cuzk_pce *pce,
                                   const cuzk_fr *w, const cuzk_wpack *wp, const cuzk_fr *r_in,
                                   const cuzk_fr *s_in, cuzk_proof *out, cuzk_prove_timings *tm)
{
    return cuzk_groth16_prove_packed_next(be, params, pce, w, wp, NULL, r_in, s_in, out, tm);
}

cuzk_err cuzk_groth16_prove_packed_next(cuzk_backend *be, const cuzk_params *params,
                                        const cuzk_pce *pce, const cuzk_fr *w, const cuzk_wpack *wp,
                                        const cuzk_wpack *next, const cuzk_fr *r_in,
                                        const cuzk_fr *s_in, cuzk_proof *out,
                                        cuzk_prove_timings *tm)
{
    if (!wp || wp->n != (uint64_t)pce->n_inputs + pce->n_aux) {
        /* no compute_h_pce settles an upload started for this proof */
        cuzk_backend_packed_drop(be);
        return cuzk_fail(CUZK_EINVAL, "packed witness of %llu elements for a circuit of %llu",
                         wp ? (unsigned long long)wp->n : 0ull,
                         (unsigned long long)(pce->n_inputs + pce->n_aux));
    }
    if (!be->ops->compute_h_pce)
        return cuzk_groth16_prove(be, params, pce, w, r_in, s_in, out, tm);
    cuzk_prove_timings tl;
    if (!tm)
        tm = &tl;
    memset(tm, 0, sizeof *tm);
    double t_start = cuzk_now();
    cuzk_groth16_shape sh = cuzk_groth16_shape_of(pce);
    cuzk_h_basis basis;
    cuzk_fr r, s;
    cuzk_err rc = prove_start(be, params, &sh, w, r_in, s_in, &r, &s, &basis);
    if (!rc && basis != CUZK_H_BELLPERSON)
        rc = cuzk_fail(CUZK_EINVAL, "prove from a packed witness: the parameters' h query is "
                                    "in snarkjs's basis; only bellperson's is supported");
    if (rc) {
        cuzk_backend_packed_drop(be);
        return rc;
    }
    const cuzk_fr *h_key = (const cuzk_fr *)(const void *)wp;
    double t = cuzk_now();
    rc = be->ops->compute_h_pce(be, pce, wp, next, w, h_key);
    if (rc) {
        if (be->ops->witness_end)
            be->ops->witness_end(be);
        return rc;
    }
    tm->h = cuzk_now() - t;
    add_device_time(be, &tm->dev_h_copy, &tm->dev_h_kernel);
    rc = prove_finish(be, params, &sh, basis, w, h_key, 1, &r, &s, out, tm);
    tm->total = cuzk_now() - t_start;
    return rc;
}
