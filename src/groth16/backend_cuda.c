/* The CUDA backend: the proving operations on one GPU (any ordinal).
 *
 *   compute_h            on the GPU (src/gpu/ntt.cu: inverse NTTs, coset
 *                        NTTs of a and b, their product's coset iNTT minus
 *                        c's coefficients, divided by Z;
 *                        b and c uploaded while a is transformed; h left on
 *                        the device for msm_h)
 *   msm_g1, msm_g2       on the GPU (src/gpu/msm.cu: 0/1 split, Pippenger
 *                        with device bucket sorting; bases stay resident
 *                        on the device across proofs; the witness is
 *                        uploaded once per proof for the L, A, B_G1 and
 *                        B_G2 MSMs, witness_begin/end; a set the GPU had
 *                        to give back goes up again during the MSMs
 *                        before its own, bases_ahead)
 *   compute_h_pce        on the GPU (src/gpu/spmv.cu: the constraint system
 *                        kept on the device, the packed witness expanded
 *                        there, a, b, c by a device SpMV with every row
 *                        checked, then as compute_h_resident; the next
 *                        proof's packed witness uploaded meanwhile)
 *   compute_h_odd_coset  on the GPU (src/gpu/ntt.cu: snarkjs's basis, the
 *                        index permutation of backend_cpu.c around the
 *                        same NTTs)
 *
 * Every result equals the CPU backend's bit for bit (tests/gpu). Each
 * operation first makes the backend's GPU current on the calling thread
 * (CUDA keeps the current device per thread), so a backend opened on one
 * thread and used on another, as the daemon's workers do, stays on its GPU.
 * Without CUDA in the build this file defines only a constructor that
 * refuses. */
#include "backend_internal.h"

#include <stdlib.h>

#ifdef CUZK_HAVE_CUDA
#include "cuzk/gpu.h"

static cuzk_gpu *gpu_of(cuzk_backend *be)
{
    return (cuzk_gpu *)be->impl;
}

static cuzk_err cuda_compute_h(cuzk_backend *be, unsigned log_m, cuzk_fr *a, cuzk_fr *b, cuzk_fr *c)
{
    CUZK_TRY(cuzk_gpu_bind(gpu_of(be)));
    return cuzk_gpu_compute_h(gpu_of(be), log_m, a, b, c);
}

static cuzk_err cuda_compute_h_odd_coset(cuzk_backend *be, unsigned log_m, cuzk_fr *a, cuzk_fr *b,
                                         cuzk_fr *c)
{
    CUZK_TRY(cuzk_gpu_bind(gpu_of(be)));
    return cuzk_gpu_compute_h_odd_coset(gpu_of(be), log_m, a, b, c);
}

static cuzk_err cuda_msm_g1(cuzk_backend *be, blst_p1 *out, const blst_p1_affine *bases,
                            size_t n_bases, const cuzk_fr *k, const uint64_t *density, size_t n,
                            cuzk_msm_stats *stats)
{
    CUZK_TRY(cuzk_gpu_bind(gpu_of(be)));
    return cuzk_gpu_msm_g1(gpu_of(be), out, bases, n_bases, k, density, n, stats);
}

static cuzk_err cuda_msm_g2(cuzk_backend *be, blst_p2 *out, const blst_p2_affine *bases,
                            size_t n_bases, const cuzk_fr *k, const uint64_t *density, size_t n,
                            cuzk_msm_stats *stats)
{
    CUZK_TRY(cuzk_gpu_bind(gpu_of(be)));
    return cuzk_gpu_msm_g2(gpu_of(be), out, bases, n_bases, k, density, n, stats);
}

static cuzk_err cuda_compute_h_resident(cuzk_backend *be, unsigned log_m, cuzk_fr *a, cuzk_fr *b,
                                        cuzk_fr *c, const cuzk_fr *w, size_t n_w)
{
    CUZK_TRY(cuzk_gpu_bind(gpu_of(be)));
    return cuzk_gpu_compute_h_resident(gpu_of(be), log_m, a, b, c, w, n_w);
}

static cuzk_err cuda_compute_h_pce(cuzk_backend *be, const cuzk_pce *pce, const cuzk_wpack *wp,
                                   const cuzk_wpack *next, const cuzk_fr *w, const void *h_key)
{
    CUZK_TRY(cuzk_gpu_bind(gpu_of(be)));
    return cuzk_gpu_compute_h_pce(gpu_of(be), pce, wp, next, w, h_key);
}

static void cuda_packed_drop(cuzk_backend *be)
{
    cuzk_gpu_prefetch_drop(gpu_of(be));
}

static void cuda_trim(cuzk_backend *be)
{
    cuzk_gpu_trim(gpu_of(be));
}

static cuzk_err cuda_msm_h(cuzk_backend *be, blst_p1 *out, const blst_p1_affine *bases,
                           size_t n_bases, const cuzk_fr *h, size_t n)
{
    CUZK_TRY(cuzk_gpu_bind(gpu_of(be)));
    return cuzk_gpu_msm_g1_h(gpu_of(be), out, bases, n_bases, h, n);
}

static cuzk_err cuda_witness_begin(cuzk_backend *be, const cuzk_fr *w, size_t n)
{
    CUZK_TRY(cuzk_gpu_bind(gpu_of(be)));
    return cuzk_gpu_scalars_set(gpu_of(be), w, n);
}

static void cuda_witness_end(cuzk_backend *be)
{
    if (cuzk_gpu_bind(gpu_of(be)) == CUZK_OK)
        cuzk_gpu_scalars_clear(gpu_of(be));
}

static void cuda_last_device_time(const cuzk_backend *be, double *copy_s, double *kernel_s)
{
    cuzk_gpu_times t;
    cuzk_gpu_last_times((const cuzk_gpu *)be->impl, &t);
    *copy_s = (t.h2d_ms + t.d2h_ms) / 1e3;
    *kernel_s = t.kernel_ms / 1e3;
}

static cuzk_err cuda_pin_bases(cuzk_backend *be, const void *host, size_t n, size_t elem)
{
    CUZK_TRY(cuzk_gpu_bind(gpu_of(be)));
    return cuzk_gpu_bases_pin(gpu_of(be), host, n, elem);
}

static int cuda_bases_pinned(cuzk_backend *be, const void *host, size_t n, size_t elem)
{
    return cuzk_gpu_bases_pinned(gpu_of(be), host, n, elem);
}

static int cuda_bases_ahead(cuzk_backend *be, const void *host, size_t n, size_t elem,
                            size_t entries)
{
    return cuzk_gpu_bases_ahead(gpu_of(be), host, n, elem, entries);
}

static void cuda_forget_bases(cuzk_backend *be)
{
    if (cuzk_gpu_bind(gpu_of(be)) == CUZK_OK) {
        cuzk_gpu_msm_forget(gpu_of(be));
        cuzk_gpu_pce_forget(gpu_of(be));
    }
}

static int cuda_device(const cuzk_backend *be)
{
    return cuzk_gpu_ordinal((const cuzk_gpu *)be->impl);
}

static void cuda_close(cuzk_backend *be)
{
    cuzk_gpu_close(gpu_of(be));
    free(be);
}

static const cuzk_backend_ops cuda_ops = {
    .name = "cuda",
    .compute_h = cuda_compute_h,
    .msm_g1 = cuda_msm_g1,
    .msm_g2 = cuda_msm_g2,
    .close = cuda_close,
    .compute_h_odd_coset = cuda_compute_h_odd_coset,
    .device = cuda_device,
    .witness_begin = cuda_witness_begin,
    .witness_end = cuda_witness_end,
    .last_device_time = cuda_last_device_time,
    .msm_h = cuda_msm_h,
    .compute_h_resident = cuda_compute_h_resident,
    .pin_bases = cuda_pin_bases,
    .bases_pinned = cuda_bases_pinned,
    .forget_bases = cuda_forget_bases,
    .compute_h_pce = cuda_compute_h_pce,
    .packed_drop = cuda_packed_drop,
    .trim = cuda_trim,
    .bases_ahead = cuda_bases_ahead,
};

cuzk_err cuzk_backend_cuda_open(int ordinal, cuzk_backend **out)
{
    *out = NULL;
    int n = cuzk_gpu_count();
    if (n == 0)
        return cuzk_fail(CUZK_EUNSUPPORTED, "backend cuda: no CUDA device is visible");
    if (ordinal >= n)
        return cuzk_fail(CUZK_EUNSUPPORTED, "backend cuda:%d: no such GPU (%d visible: 0..%d)",
                         ordinal, n, n - 1);
    cuzk_backend *be = calloc(1, sizeof *be);
    if (!be)
        return cuzk_fail(CUZK_ENOMEM, "cuda backend: out of memory");
    cuzk_gpu *g;
    cuzk_err rc = cuzk_gpu_open(ordinal, &g);
    if (rc) {
        free(be);
        return rc;
    }
    be->ops = &cuda_ops;
    be->impl = g;
    *out = be;
    return CUZK_OK;
}

#else

cuzk_err cuzk_backend_cuda_open(int ordinal, cuzk_backend **out)
{
    (void)ordinal;
    *out = NULL;
    return cuzk_fail(CUZK_EUNSUPPORTED,
                     "backend cuda: this build has no CUDA support (nvcc was not found)");
}

#endif
