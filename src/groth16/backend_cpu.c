/* The CPU backend: H by the C NTTs of poly/, MSMs by msm/ (blst Pippenger
 * with the 0/1 split). It caches the NTT domain of the last size used, so a
 * stream of proofs of one circuit pays for the twiddles once. */
#include "backend_internal.h"
#include "cuzk/ntt.h"

#include "cuzk/threads.h"

#include <stdlib.h>
#include <string.h>

typedef struct {
    cuzk_ntt_domain dom;
    int have_dom;
} cpu_impl;

static cuzk_err cached_domain(cuzk_backend *be, unsigned log_m, const cuzk_ntt_domain **d)
{
    cpu_impl *im = be->impl;
    if (!im->have_dom || im->dom.log_n != log_m) {
        if (im->have_dom)
            cuzk_ntt_domain_free(&im->dom);
        im->have_dom = 0;
        CUZK_TRY(cuzk_ntt_domain_init(&im->dom, log_m));
        im->have_dom = 1;
    }
    *d = &im->dom;
    return CUZK_OK;
}

/* snarkjs's H. Its rows and evaluation points use ffjavascript's roots:
 * its point i of the m-domain is our point i*j mod m (j odd, fr.h), so its
 * transforms are ours with indices permuted. Scatter a, b, c (row i to slot
 * i*j), interpolate with our inverse NTT, scale coefficient k by g^k (g its
 * 2m-th root, g^2 = its omega), evaluate with our NTT, a*b - c, and gather
 * slot i*j back to position i. */
typedef struct {
    cuzk_fr *dst;
    const cuzk_fr *src;
    uint64_t mask, j;
    int gather;
} perm_ctx;

static void perm_range(void *vctx, size_t begin, size_t end, unsigned worker)
{
    (void)worker;
    perm_ctx *c = vctx;
    for (size_t i = begin; i < end; i++) {
        size_t k = (size_t)((i * c->j) & c->mask);
        if (c->gather)
            c->dst[i] = c->src[k];
        else
            c->dst[k] = c->src[i];
    }
}

static void permute(cuzk_fr *v, cuzk_fr *scratch, size_t n, uint64_t j, int gather)
{
    perm_ctx c = {scratch, v, n - 1, j, gather};
    cuzk_parallel_for(n, 4096, perm_range, &c);
    memcpy(v, scratch, n * sizeof *v);
}

static cuzk_err h_odd_coset(const cuzk_ntt_domain *d, cuzk_fr *a, cuzk_fr *b, cuzk_fr *c)
{
    cuzk_fr g;
    CUZK_TRY(cuzk_fr_root_of_unity_snarkjs(&g, d->log_n + 1));
    uint64_t j = cuzk_fr_snarkjs_root_exponent();
    cuzk_fr *scratch = malloc(d->n * sizeof *scratch);
    if (!scratch)
        return cuzk_fail(CUZK_ENOMEM, "H: cannot allocate %zu field elements of scratch", d->n);
    cuzk_fr *v[3] = {a, b, c};
    for (int i = 0; i < 3; i++) {
        permute(v[i], scratch, d->n, j, 0);
        cuzk_ntt_inverse(d, v[i]);
        cuzk_fr_vec_powers_mul(v[i], v[i], &g, NULL, d->n);
        cuzk_ntt_forward(d, v[i]);
    }
    cuzk_fr_vec_mul(a, a, b, d->n);
    cuzk_fr_vec_sub(a, a, c, d->n);
    permute(a, scratch, d->n, j, 1);
    free(scratch);
    return CUZK_OK;
}

cuzk_err cuzk_h_odd_coset_cpu(unsigned log_m, cuzk_fr *a, cuzk_fr *b, cuzk_fr *c)
{
    cuzk_ntt_domain d;
    CUZK_TRY(cuzk_ntt_domain_init(&d, log_m));
    cuzk_err e = h_odd_coset(&d, a, b, c);
    cuzk_ntt_domain_free(&d);
    return e;
}

static cuzk_err cpu_compute_h_odd_coset(cuzk_backend *be, unsigned log_m, cuzk_fr *a, cuzk_fr *b,
                                        cuzk_fr *c)
{
    const cuzk_ntt_domain *d;
    CUZK_TRY(cached_domain(be, log_m, &d));
    return h_odd_coset(d, a, b, c);
}

static cuzk_err cpu_compute_h(cuzk_backend *be, unsigned log_m, cuzk_fr *a, cuzk_fr *b, cuzk_fr *c)
{
    const cuzk_ntt_domain *d;
    CUZK_TRY(cached_domain(be, log_m, &d));
    /* h = icoset(coset(A) coset(B) - coset(C)) / Z, with Z(x) = x^m - 1
     * the constant g^m - 1 on the coset g<omega>. The coset inverse undoes
     * coset(C) exactly, so h = (icoset(coset(A) coset(B)) - C) / Z: c needs
     * only its inverse transform, six transforms instead of seven, and the
     * result is the same field elements. */
    cuzk_ntt_inverse(d, a);
    cuzk_ntt_coset_forward(d, a);
    cuzk_ntt_inverse(d, b);
    cuzk_ntt_coset_forward(d, b);
    cuzk_ntt_inverse(d, c);
    cuzk_fr_vec_mul(a, a, b, d->n);
    cuzk_ntt_coset_inverse(d, a);
    cuzk_fr_vec_sub(a, a, c, d->n);
    cuzk_fr z;
    cuzk_ntt_coset_z_inv(d, &z);
    cuzk_fr_vec_scale(a, a, &z, d->n);
    return CUZK_OK;
}

static cuzk_err cpu_msm_g1(cuzk_backend *be, blst_p1 *out, const blst_p1_affine *bases,
                           size_t n_bases, const cuzk_fr *k, const uint64_t *density, size_t n,
                           cuzk_msm_stats *stats)
{
    (void)be;
    return cuzk_msm_g1(out, bases, n_bases, k, density, n, stats);
}

static cuzk_err cpu_msm_g2(cuzk_backend *be, blst_p2 *out, const blst_p2_affine *bases,
                           size_t n_bases, const cuzk_fr *k, const uint64_t *density, size_t n,
                           cuzk_msm_stats *stats)
{
    (void)be;
    return cuzk_msm_g2(out, bases, n_bases, k, density, n, stats);
}

static void cpu_close(cuzk_backend *be)
{
    cpu_impl *im = be->impl;
    if (im && im->have_dom)
        cuzk_ntt_domain_free(&im->dom);
    free(im);
    free(be);
}

static const cuzk_backend_ops cpu_ops = {
    .name = "cpu",
    .compute_h = cpu_compute_h,
    .msm_g1 = cpu_msm_g1,
    .msm_g2 = cpu_msm_g2,
    .close = cpu_close,
    .compute_h_odd_coset = cpu_compute_h_odd_coset,
    .device = NULL, /* host only */
    .witness_begin = NULL,
    .witness_end = NULL,
    .last_device_time = NULL,
    .msm_h = NULL,
    .compute_h_resident = NULL,
};

cuzk_err cuzk_backend_cpu_open(cuzk_backend **out)
{
    cuzk_backend *be = calloc(1, sizeof *be);
    cpu_impl *im = calloc(1, sizeof *im);
    if (!be || !im) {
        free(be);
        free(im);
        return cuzk_fail(CUZK_ENOMEM, "cpu backend: out of memory");
    }
    be->ops = &cpu_ops;
    be->impl = im;
    *out = be;
    return CUZK_OK;
}
