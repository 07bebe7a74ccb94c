/* The CPU backend: H by the C NTTs of poly/, MSMs by msm/ (blst Pippenger
 * with the 0/1 split). It caches the NTT domain of the last size used, so a
 * stream of proofs of one circuit pays for the twiddles once. */
#include "backend_internal.h"
#include "cuzk/ntt.h"

#include <stdlib.h>

typedef struct {
    cuzk_ntt_domain dom;
    int have_dom;
} cpu_impl;

static cuzk_err cpu_compute_h(cuzk_backend *be, unsigned log_m, cuzk_fr *a, cuzk_fr *b, cuzk_fr *c)
{
    cpu_impl *im = be->impl;
    if (!im->have_dom || im->dom.log_n != log_m) {
        if (im->have_dom)
            cuzk_ntt_domain_free(&im->dom);
        im->have_dom = 0;
        CUZK_TRY(cuzk_ntt_domain_init(&im->dom, log_m));
        im->have_dom = 1;
    }
    const cuzk_ntt_domain *d = &im->dom;
    cuzk_fr *v[3] = {a, b, c};
    for (int i = 0; i < 3; i++) {
        cuzk_ntt_inverse(d, v[i]);
        cuzk_ntt_coset_forward(d, v[i]);
    }
    cuzk_fr_vec_mul(a, a, b, d->n);
    cuzk_fr_vec_sub(a, a, c, d->n);
    /* Z(x) = x^m - 1 is the constant g^m - 1 on the coset g*<omega>. */
    cuzk_fr z, one;
    cuzk_fr_pow_u64(&z, &d->shift, d->n);
    cuzk_fr_one(&one);
    blst_fr_sub(&z, &z, &one);
    cuzk_fr_inv(&z, &z);
    cuzk_fr_vec_scale(a, a, &z, d->n);
    cuzk_ntt_coset_inverse(d, a);
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

static const cuzk_backend_ops cpu_ops = {"cpu", cpu_compute_h, cpu_msm_g1, cpu_msm_g2, cpu_close};

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
