/* Throughput of the Fp multiplication variants on the device, for
 * choosing how the kernels multiply (cuzk-bench gpu-fpmul).
 *
 * Each thread runs two independent chains x <- x y of Montgomery products
 * (two chains so that a thread has some independent work, as the curve
 * kernels do) over enough threads to fill the device several times:
 *   cios   fp_mul: word-by-word Montgomery on the integer pipe (the kernels'
 *          multiplication today);
 *   sos    the whole product on the integer pipe, then the reduction
 *          (fp_mul_wide + fp_redc, as Fp2 products do);
 *   fd     the whole product on the double-precision pipe (fp_fd.h), then
 *          the same integer reduction;
 *   mixed  one chain cios, the other fd, so a thread feeds both pipes.
 * All four give the same field elements from the same inputs, which the
 * benchmark checks. */
#include <stdlib.h>

#include "field.cuh"
#include "fp_fd.h"
#include "gpu_internal.h"

enum { FM_CIOS, FM_SOS, FM_FD, FM_MIXED, FM_KINDS };

static __device__ __forceinline__ fp_t fm_sos(fp_t a, fp_t b)
{
    uint32_t t[24];
    fp_mul_wide(t, a, b);
    return fp_redc(t);
}

static __device__ __forceinline__ fp_t fm_fd(fp_t a, fp_t b)
{
    uint32_t t[24];
    fd_mul_wide(t, a.l, b.l);
    return fp_redc(t);
}

template <int K>
__global__ void __launch_bounds__(128) k_fpmul_chains(fp_t *x, const fp_t *y, size_t n, int iters)
{
    size_t i = blockIdx.x * (size_t)blockDim.x + threadIdx.x;
    if (i >= n)
        return;
    fp_t a = x[2 * i], c = x[2 * i + 1], b = y[i];
    for (int k = 0; k < iters; k++) {
        if (K == FM_CIOS) {
            a = fp_mul(a, b);
            c = fp_mul(c, b);
        } else if (K == FM_SOS) {
            a = fm_sos(a, b);
            c = fm_sos(c, b);
        } else if (K == FM_FD) {
            a = fm_fd(a, b);
            c = fm_fd(c, b);
        } else {
            a = fp_mul(a, b);
            c = fm_fd(c, b);
        }
    }
    x[2 * i] = a;
    x[2 * i + 1] = c;
}

/* Values below p (the top limb below 2^28) from a hash of the index. */
__global__ void k_fpmul_inputs(fp_t *v, size_t n, uint64_t seed)
{
    size_t i = blockIdx.x * (size_t)blockDim.x + threadIdx.x;
    if (i >= n)
        return;
    uint64_t z = seed ^ (i * 0x9e3779b97f4a7c15ull);
    for (int k = 0; k < 12; k++) {
        z += 0x9e3779b97f4a7c15ull;
        uint64_t w = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
        w = (w ^ (w >> 27)) * 0x94d049bb133111ebull;
        v[i].l[k] = (uint32_t)(w ^ (w >> 31));
    }
    v[i].l[11] &= 0x0fffffffu;
}

extern "C" cuzk_err cuzk_gpu_bench_fpmul(cuzk_gpu *g, int reps, double gmul_s[4], int *same)
{
    if (reps < 1 || reps > 64)
        return cuzk_fail(CUZK_EINVAL, "GPU Fp multiplication bench: reps %d outside 1..64", reps);
    GPU_TRY(cudaSetDevice(g->ordinal), "select device");
    const size_t n = (size_t)1 << 18; /* threads: several waves on any device */
    const int iters = 512;
    void *mem;
    CUZK_TRY(gpu_alloc(&mem, 3 * n * sizeof(fp_t), "Fp multiplication bench"));
    fp_t *x = (fp_t *)mem, *y = x + 2 * n; /* 2n chain starts, n multipliers */
    fp_t *work;
    cuzk_err rc = gpu_alloc((void **)&work, 2 * n * sizeof(fp_t), "Fp multiplication bench");
    if (rc) {
        cudaFree(mem);
        return rc;
    }
    void (*kern[FM_KINDS])(fp_t *, const fp_t *, size_t,
                           int) = {k_fpmul_chains<FM_CIOS>, k_fpmul_chains<FM_SOS>,
                                   k_fpmul_chains<FM_FD>, k_fpmul_chains<FM_MIXED>};
    unsigned grid = (unsigned)((n + 127) / 128);
    k_fpmul_inputs<<<(unsigned)((3 * n + 127) / 128), 128, 0, g->stream>>>(x, 3 * n, 77);
    fp_t *ref = (fp_t *)malloc(2 * n * sizeof(fp_t)), *got = (fp_t *)malloc(2 * n * sizeof(fp_t));
    if (!ref || !got) {
        free(ref);
        free(got);
        cudaFree(work);
        cudaFree(mem);
        return cuzk_fail(CUZK_ENOMEM, "Fp multiplication bench: out of host memory");
    }
    *same = 1;
    cudaEvent_t e0 = g->ev[0], e1 = g->ev[3];
    cudaError_t e = cudaSuccess;
    for (int k = 0; k < FM_KINDS && e == cudaSuccess; k++) {
        double t[64];
        for (int r = 0; r <= reps && e == cudaSuccess; r++) { /* r = 0: warm-up and check */
            e = cudaMemcpyAsync(work, x, 2 * n * sizeof(fp_t), cudaMemcpyDeviceToDevice, g->stream);
            cudaEventRecord(e0, g->stream);
            kern[k]<<<grid, 128, 0, g->stream>>>(work, y, n, iters);
            cudaEventRecord(e1, g->stream);
            if (e == cudaSuccess)
                e = cudaEventSynchronize(e1);
            if (e == cudaSuccess)
                e = cudaGetLastError();
            float f = 0;
            cudaEventElapsedTime(&f, e0, e1);
            if (r)
                t[r - 1] = f;
            else if (e == cudaSuccess) {
                e = cudaMemcpy(k ? got : ref, work, 2 * n * sizeof(fp_t), cudaMemcpyDeviceToHost);
                if (k && memcmp(ref, got, 2 * n * sizeof(fp_t)))
                    *same = 0;
            }
        }
        if (e == cudaSuccess) {
            gmul_s[k] = 2.0 * (double)n * iters / (gpu_median(t, (size_t)reps) * 1e-3) / 1e9;
        }
    }
    free(ref);
    free(got);
    cudaFree(work);
    cudaFree(mem);
    if (e != cudaSuccess)
        return gpu_fail(e, "Fp multiplication bench");
    return CUZK_OK;
}
