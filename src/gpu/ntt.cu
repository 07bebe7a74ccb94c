/* Number-theoretic transforms over Fr on the device, and the H polynomial.
 *
 * Same conventions and results as the CPU NTT (include/cuzk/ntt.h):
 * natural order in and out, omega from cuzk_fr_root_of_unity, coset shift
 * g = 7, the inverse scaled by 1/n. The field is exact, so any correct
 * algorithm gives the CPU's bytes.
 *
 * Every transform is a decimation-in-frequency pass (Gentleman-Sande
 * butterflies, natural order in, bit-reversed order out) followed by one
 * in-place bit-reversal that also applies any scaling the transform needs:
 * 1/n for the inverse, 1/n * g^i or 1/n * g^-i when an inverse is followed
 * by a coset scaling. The inverse uses the forward twiddles of the
 * conjugate root (omega_2h^-e = -omega_2h^(h-e)), so one table serves both.
 *
 * The DIF pass is cut into groups of stages that each run in one kernel
 * with 2^10 elements in shared memory: a group covering R stages loads, for
 * each of T = 2^(10-R) adjacent columns, the 2^R elements that interact
 * across those stages (stride n / 2^(s+R) apart), so loads are 32-byte
 * elements in runs of T. The last group covers the final 10 stages with
 * stride 1. A 2^27 transform is thus 4 passes over the data plus the
 * bit-reversal. Twiddles come from one table of n elements laid out by
 * stage, tw[h + j] = omega_2h^j, so each stage reads a contiguous run.
 * Coset powers g^i come from two tables of 2^ceil(log_n/2) entries
 * (g^i = hi[i >> b] * lo[i & (2^b - 1)]). */
#include <stdlib.h>
#include <string.h>

#include "field.cuh"
#include "gpu_internal.h"

#define NTT_SHARED_LOG 10
#define NTT_THREADS 256

static __device__ __forceinline__ fr_t pow_get(const fr_t *tab, unsigned bits, size_t e)
{
    return fr_mul(tab[((size_t)1 << bits) + (e >> bits)], tab[e & (((size_t)1 << bits) - 1)]);
}

/* tw[i] for 1 <= i < n: i = h + j with h the top power of two of i. */
__global__ void k_ntt_twiddles(fr_t *tw, unsigned log_n, const fr_t *wtab, unsigned bits)
{
    size_t n = (size_t)1 << log_n;
    for (size_t i = blockIdx.x * (size_t)blockDim.x + threadIdx.x; i < n;
         i += (size_t)gridDim.x * blockDim.x) {
        if (i == 0) {
            tw[0] = fr_zero();
            continue;
        }
        unsigned lh = 63 - __clzll((long long)i);
        size_t j = i - ((size_t)1 << lh);
        tw[i] = pow_get(wtab, bits, j << (log_n - 1 - lh));
    }
}

static __device__ __forceinline__ fr_t twiddle(const fr_t *tw, size_t h, size_t e, int inverse)
{
    if (!inverse)
        return tw[h + e];
    if (e == 0)
        return fr_one();
    return fr_neg(tw[2 * h - e]);
}

/* One group of R DIF stages starting at stage s (half-size n >> (s+1)). */
__global__ void __launch_bounds__(NTT_THREADS)
    k_ntt_dif_group(fr_t *a, unsigned log_n, unsigned s, unsigned R, unsigned logT, int inverse,
                    const fr_t *tw, const fr_t *pre_tab, unsigned pre_bits)
{
    __shared__ fr_t sh[1 << NTT_SHARED_LOG];
    const unsigned T = 1u << logT, E = 1u << (R + logT);
    const size_t stride = (size_t)1 << (log_n - s - R);
    const size_t nchunks = stride >> logT;
    const size_t hi = blockIdx.x / nchunks, chunk = blockIdx.x % nchunks;
    const size_t lo0 = chunk * T, base = hi * (stride << R) + lo0;
    for (unsigned e = threadIdx.x; e < E; e += blockDim.x) {
        size_t idx = base + (size_t)(e >> logT) * stride + (e & (T - 1));
        fr_t x = a[idx];
        if (pre_tab)
            x = fr_mul(x, pow_get(pre_tab, pre_bits, idx));
        sh[e] = x;
    }
    __syncthreads();
    for (unsigned r = 0; r < R; r++) {
        const unsigned lhj = R - 1 - r, hj = 1u << lhj;
        const size_t h = (size_t)hj * stride;
        for (unsigned bf = threadIdx.x; bf < E / 2; bf += blockDim.x) {
            unsigned t = bf & (T - 1), q = bf >> logT;
            unsigned jj = q & (hj - 1), j0 = ((q >> lhj) << (lhj + 1)) | jj;
            unsigned i0 = (j0 << logT) | t, i1 = ((j0 + hj) << logT) | t;
            fr_t u = sh[i0], v = sh[i1];
            fr_t w = twiddle(tw, h, (size_t)jj * stride + lo0 + t, inverse);
            sh[i0] = fr_add(u, v);
            sh[i1] = fr_mul(fr_sub(u, v), w);
        }
        __syncthreads();
    }
    for (unsigned e = threadIdx.x; e < E; e += blockDim.x)
        a[base + (size_t)(e >> logT) * stride + (e & (T - 1))] = sh[e];
}

/* In-place bit reversal; element landing at position i is multiplied by
 * c (when scale) times tab^i (when tab). */
__global__ void k_ntt_bitrev(fr_t *a, unsigned log_n, int scale, fr_t c, const fr_t *tab,
                             unsigned bits)
{
    size_t n = (size_t)1 << log_n;
    for (size_t i = blockIdx.x * (size_t)blockDim.x + threadIdx.x; i < n;
         i += (size_t)gridDim.x * blockDim.x) {
        size_t r = log_n ? (size_t)(__brevll((unsigned long long)i) >> (64 - log_n)) : 0;
        if (i > r)
            continue;
        fr_t x = a[i], y = a[r];
        if (scale) {
            fr_t si = c, sr = c;
            if (tab) {
                si = fr_mul(si, pow_get(tab, bits, i));
                sr = fr_mul(sr, pow_get(tab, bits, r));
            }
            x = fr_mul(x, sr);
            y = fr_mul(y, si);
        }
        a[r] = x;
        a[i] = y;
    }
}

/* a = (a b - c) z on the coset: H's numerator divided by Z. */
__global__ void k_h_pointwise(fr_t *a, const fr_t *b, const fr_t *c, fr_t z, size_t n)
{
    for (size_t i = blockIdx.x * (size_t)blockDim.x + threadIdx.x; i < n;
         i += (size_t)gridDim.x * blockDim.x)
        a[i] = fr_mul(fr_sub(fr_mul(a[i], b[i]), c[i]), z);
}

/* Random field elements below 2^253 (valid Montgomery forms) for benchmarks. */
__global__ void k_rand_fr(fr_t *a, size_t n, uint64_t seed)
{
    for (size_t i = blockIdx.x * (size_t)blockDim.x + threadIdx.x; i < n;
         i += (size_t)gridDim.x * blockDim.x) {
        uint64_t z = seed + i * 0x9e3779b97f4a7c15ULL;
        fr_t x;
        for (int k = 0; k < 4; k++) {
            z += 0x9e3779b97f4a7c15ULL;
            uint64_t v = z;
            v = (v ^ (v >> 30)) * 0xbf58476d1ce4e5b9ULL;
            v = (v ^ (v >> 27)) * 0x94d049bb133111ebULL;
            v ^= v >> 31;
            x.l[2 * k] = (uint32_t)v;
            x.l[2 * k + 1] = (uint32_t)(v >> 32);
        }
        x.l[7] &= 0x1fffffff;
        a[i] = x;
    }
}

static unsigned grid_for(size_t n)
{
    size_t b = (n + 255) / 256;
    return (unsigned)(b > 65536 ? 65536 : b ? b : 1);
}

void gpu_rand_fr(cuzk_gpu *g, void *a, size_t n, uint64_t seed)
{
    k_rand_fr<<<grid_for(n), 256, 0, g->stream>>>((fr_t *)a, n, seed);
}

/* Host tables lo[i] = x^i, hi[i] = x^(i 2^bits), i < 2^bits. */
static void pow_tables(cuzk_fr *t, const cuzk_fr *x, unsigned bits)
{
    size_t m = (size_t)1 << bits;
    cuzk_fr_one(&t[0]);
    for (size_t i = 1; i < m; i++)
        blst_fr_mul(&t[i], &t[i - 1], x);
    cuzk_fr step;
    blst_fr_mul(&step, &t[m - 1], x); /* x^(2^bits) */
    cuzk_fr_one(&t[m]);
    for (size_t i = 1; i < m; i++)
        blst_fr_mul(&t[m + i], &t[m + i - 1], &step);
}

void gpu_ntt_free(cuzk_gpu *g)
{
    cudaFree(g->tw);
    cudaFree(g->pow_g);
    cudaFree(g->pow_gi);
    g->tw = g->pow_g = g->pow_gi = NULL;
    g->ntt_log = 0;
}

/* Build (or keep) the tables for 2^log_n. */
static cuzk_err ntt_tables(cuzk_gpu *g, unsigned log_n)
{
    if (g->ntt_log == log_n)
        return CUZK_OK;
    gpu_ntt_free(g);
    unsigned bits = (log_n + 1) / 2;
    size_t m = (size_t)1 << bits, tb = 2 * m * sizeof(fr_t);
    cuzk_fr *h = (cuzk_fr *)malloc(3 * 2 * m * sizeof(cuzk_fr));
    if (!h)
        return cuzk_fail(CUZK_ENOMEM, "NTT tables: out of host memory");
    cuzk_fr w, gen, gi;
    cuzk_err rc = cuzk_fr_root_of_unity(&w, log_n);
    if (rc) {
        free(h);
        return rc;
    }
    cuzk_fr_generator(&gen);
    cuzk_fr_inv(&gi, &gen);
    pow_tables(h, &w, bits);
    pow_tables(h + 2 * m, &gen, bits);
    pow_tables(h + 4 * m, &gi, bits);
    void *wtab = NULL;
    if ((rc = gpu_alloc(&g->tw, ((size_t)1 << log_n) * sizeof(fr_t), "NTT twiddles")) ||
        (rc = gpu_alloc(&g->pow_g, tb, "NTT coset powers")) ||
        (rc = gpu_alloc(&g->pow_gi, tb, "NTT coset powers")) ||
        (rc = gpu_alloc(&wtab, tb, "NTT root powers"))) {
        free(h);
        cudaFree(wtab);
        gpu_ntt_free(g);
        return rc;
    }
    cudaError_t e = cudaMemcpy(wtab, h, tb, cudaMemcpyHostToDevice);
    if (e == cudaSuccess)
        e = cudaMemcpy(g->pow_g, h + 2 * m, tb, cudaMemcpyHostToDevice);
    if (e == cudaSuccess)
        e = cudaMemcpy(g->pow_gi, h + 4 * m, tb, cudaMemcpyHostToDevice);
    free(h);
    if (e == cudaSuccess) {
        k_ntt_twiddles<<<grid_for((size_t)1 << log_n), 256, 0, g->stream>>>(
            (fr_t *)g->tw, log_n, (const fr_t *)wtab, bits);
        e = cudaStreamSynchronize(g->stream);
    }
    cudaFree(wtab);
    if (e != cudaSuccess) {
        gpu_ntt_free(g);
        return gpu_fail(e, "NTT tables");
    }
    g->ntt_log = log_n;
    g->pow_bits = bits;
    return CUZK_OK;
}

static fr_t to_dev(const cuzk_fr *x)
{
    fr_t r;
    memcpy(&r, x, sizeof r);
    return r;
}

/* The DIF pass over all stages; pre: optional powers table applied to the
 * input (x_i *= pre^i) in the first group. */
static void dif(cuzk_gpu *g, fr_t *a, unsigned log_n, int inverse, const void *pre)
{
    unsigned last = log_n < NTT_SHARED_LOG ? log_n : NTT_SHARED_LOG, rest = log_n - last;
    unsigned groups = (rest + 7) / 8, s = 0;
    for (unsigned k = 0; k <= groups; k++) {
        unsigned R, logT;
        if (k < groups) {
            R = rest / groups + (k < rest % groups);
            logT = NTT_SHARED_LOG - R;
        } else {
            R = last;
            logT = 0;
        }
        if (R == 0)
            continue;
        size_t blocks = ((size_t)1 << log_n) >> (R + logT);
        k_ntt_dif_group<<<(unsigned)blocks, NTT_THREADS, 0, g->stream>>>(
            a, log_n, s, R, logT, inverse, (const fr_t *)g->tw, s == 0 ? (const fr_t *)pre : NULL,
            g->pow_bits);
        s += R;
    }
}

static void bitrev(cuzk_gpu *g, fr_t *a, unsigned log_n, const cuzk_fr *c, const void *tab)
{
    fr_t cd = c ? to_dev(c) : fr_t();
    k_ntt_bitrev<<<grid_for((size_t)1 << log_n), 256, 0, g->stream>>>(
        a, log_n, c != NULL, cd, (const fr_t *)tab, g->pow_bits);
}

static void n_inverse(cuzk_fr *r, unsigned log_n)
{
    cuzk_fr_from_u64(r, (uint64_t)1 << log_n);
    cuzk_fr_inv(r, r);
}

/* One transform on device data; tables must be ready for log_n. */
static void ntt_device(cuzk_gpu *g, cuzk_gpu_ntt_kind kind, unsigned log_n, fr_t *a)
{
    cuzk_fr ninv;
    n_inverse(&ninv, log_n);
    switch (kind) {
    case CUZK_GPU_NTT_FORWARD:
        dif(g, a, log_n, 0, NULL);
        bitrev(g, a, log_n, NULL, NULL);
        break;
    case CUZK_GPU_NTT_INVERSE:
        dif(g, a, log_n, 1, NULL);
        bitrev(g, a, log_n, &ninv, NULL);
        break;
    case CUZK_GPU_NTT_COSET_FORWARD:
        dif(g, a, log_n, 0, g->pow_g);
        bitrev(g, a, log_n, NULL, NULL);
        break;
    case CUZK_GPU_NTT_COSET_INVERSE:
        dif(g, a, log_n, 1, NULL);
        bitrev(g, a, log_n, &ninv, g->pow_gi);
        break;
    }
}

static cuzk_err check_log(unsigned log_n)
{
    if (log_n < 1 || log_n > 28)
        return cuzk_fail(CUZK_EINVAL, "GPU NTT: log size %u outside 1..28", log_n);
    return CUZK_OK;
}

extern "C" cuzk_err cuzk_gpu_ntt(cuzk_gpu *g, cuzk_gpu_ntt_kind kind, unsigned log_n, cuzk_fr *a)
{
    CUZK_TRY(check_log(log_n));
    if ((unsigned)kind > CUZK_GPU_NTT_COSET_INVERSE)
        return cuzk_fail(CUZK_EINVAL, "GPU NTT: unknown transform %d", (int)kind);
    GPU_TRY(cudaSetDevice(g->ordinal), "select device");
    CUZK_TRY(ntt_tables(g, log_n));
    size_t bytes = ((size_t)1 << log_n) * sizeof(fr_t);
    void *d;
    CUZK_TRY(gpu_alloc(&d, bytes, "NTT data"));
    gpu_times_begin(g);
    cuzk_err rc = gpu_copy_h2d(g, d, a, bytes);
    if (!rc) {
        gpu_times_mark(g, 1);
        ntt_device(g, kind, log_n, (fr_t *)d);
        gpu_times_mark(g, 2);
        rc = gpu_copy_d2h(g, a, d, bytes);
    }
    if (!rc)
        rc = gpu_times_end(g);
    cudaFree(d);
    return rc;
}

extern "C" cuzk_err cuzk_gpu_compute_h(cuzk_gpu *g, unsigned log_m, cuzk_fr *a, const cuzk_fr *b,
                                       const cuzk_fr *c)
{
    CUZK_TRY(check_log(log_m));
    GPU_TRY(cudaSetDevice(g->ordinal), "select device");
    CUZK_TRY(ntt_tables(g, log_m));
    size_t n = (size_t)1 << log_m, bytes = n * sizeof(fr_t);
    void *d = NULL;
    CUZK_TRY(gpu_alloc(&d, 3 * bytes, "H: a, b and c"));
    fr_t *v[3] = {(fr_t *)d, (fr_t *)d + n, (fr_t *)d + 2 * n};
    const cuzk_fr *hv[3] = {a, b, c};
    cuzk_fr ninv, z, one;
    n_inverse(&ninv, log_m);
    /* 1/Z on the coset: 1/(g^n - 1), as the CPU backend computes it. */
    cuzk_fr_generator(&z);
    cuzk_fr_pow_u64(&z, &z, n);
    cuzk_fr_one(&one);
    blst_fr_sub(&z, &z, &one);
    cuzk_fr_inv(&z, &z);
    gpu_times_begin(g);
    cuzk_err rc = CUZK_OK;
    for (int i = 0; i < 3 && !rc; i++)
        rc = gpu_copy_h2d(g, v[i], hv[i], bytes);
    if (rc) {
        cudaStreamSynchronize(g->stream);
        cudaFree(d);
        return rc;
    }
    gpu_times_mark(g, 1);
    for (int i = 0; i < 3; i++) {
        /* inverse NTT, then the coset scaling g^i folded into its bit reversal */
        dif(g, v[i], log_m, 1, NULL);
        bitrev(g, v[i], log_m, &ninv, g->pow_g);
        dif(g, v[i], log_m, 0, NULL);
        bitrev(g, v[i], log_m, NULL, NULL);
    }
    k_h_pointwise<<<grid_for(n), 256, 0, g->stream>>>(v[0], v[1], v[2], to_dev(&z), n);
    ntt_device(g, CUZK_GPU_NTT_COSET_INVERSE, log_m, v[0]);
    gpu_times_mark(g, 2);
    rc = gpu_copy_d2h(g, a, v[0], bytes);
    if (!rc)
        rc = gpu_times_end(g);
    cudaFree(d);
    return rc;
}

/* dst[k] = src[i] (scatter) or dst[i] = src[k] (gather), k = i j mod n: the
 * index map between snarkjs's domain points and ours (fr.h). */
__global__ void k_permute(fr_t *dst, const fr_t *src, size_t n, uint64_t j, int gather)
{
    for (size_t i = blockIdx.x * (size_t)blockDim.x + threadIdx.x; i < n;
         i += (size_t)gridDim.x * blockDim.x) {
        size_t k = (size_t)(((uint64_t)i * j) & (n - 1));
        if (gather)
            dst[i] = src[k];
        else
            dst[k] = src[i];
    }
}

/* backend.h compute_h_odd_coset, as the CPU reference (backend_cpu.c) does
 * it: rows scattered to our domain order, inverse NTT with the coefficient
 * scaling by snarkjs's 2m-th root folded into its bit reversal, forward
 * NTT, a*b - c, gathered back to snarkjs's order. */
extern "C" cuzk_err cuzk_gpu_compute_h_odd_coset(cuzk_gpu *g, unsigned log_m, cuzk_fr *a,
                                                 const cuzk_fr *b, const cuzk_fr *c)
{
    CUZK_TRY(check_log(log_m));
    GPU_TRY(cudaSetDevice(g->ordinal), "select device");
    CUZK_TRY(ntt_tables(g, log_m));
    size_t n = (size_t)1 << log_m, bytes = n * sizeof(fr_t);
    size_t tn = (size_t)2 << g->pow_bits;
    cuzk_fr gs, ninv, one;
    CUZK_TRY(cuzk_fr_root_of_unity_snarkjs(&gs, log_m + 1));
    uint64_t j = cuzk_fr_snarkjs_root_exponent();
    n_inverse(&ninv, log_m);
    cuzk_fr_one(&one);
    cuzk_fr *ht = (cuzk_fr *)malloc(tn * sizeof(cuzk_fr));
    if (!ht)
        return cuzk_fail(CUZK_ENOMEM, "H (snarkjs basis): out of host memory");
    pow_tables(ht, &gs, g->pow_bits);
    void *d = NULL;
    cuzk_err rc = gpu_alloc(&d, 4 * bytes + tn * sizeof(fr_t), "H (snarkjs basis): a, b, c");
    if (rc) {
        free(ht);
        return rc;
    }
    fr_t *v[4] = {(fr_t *)d, (fr_t *)d + n, (fr_t *)d + 2 * n, (fr_t *)d + 3 * n};
    fr_t *tab = (fr_t *)d + 4 * n;
    const cuzk_fr *hv[3] = {a, b, c};
    cudaError_t ce = cudaMemcpy(tab, ht, tn * sizeof(fr_t), cudaMemcpyHostToDevice);
    free(ht);
    if (ce != cudaSuccess) {
        cudaFree(d);
        return gpu_fail(ce, "H (snarkjs basis): powers table");
    }
    gpu_times_begin(g);
    for (int i = 0; i < 3 && !rc; i++)
        rc = gpu_copy_h2d(g, v[i], hv[i], bytes);
    if (rc) {
        cudaStreamSynchronize(g->stream);
        cudaFree(d);
        return rc;
    }
    gpu_times_mark(g, 1);
    fr_t *spare = v[3];
    for (int i = 0; i < 3; i++) {
        k_permute<<<grid_for(n), 256, 0, g->stream>>>(spare, v[i], n, j, 0);
        dif(g, spare, log_m, 1, NULL);
        bitrev(g, spare, log_m, &ninv, tab);
        dif(g, spare, log_m, 0, NULL);
        bitrev(g, spare, log_m, NULL, NULL);
        fr_t *t = v[i];
        v[i] = spare;
        spare = t;
    }
    k_h_pointwise<<<grid_for(n), 256, 0, g->stream>>>(v[0], v[1], v[2], to_dev(&one), n);
    k_permute<<<grid_for(n), 256, 0, g->stream>>>(spare, v[0], n, j, 1);
    gpu_times_mark(g, 2);
    rc = gpu_copy_d2h(g, a, spare, bytes);
    if (!rc)
        rc = gpu_times_end(g);
    cudaFree(d);
    return rc;
}

static int cmp_double(const void *x, const void *y)
{
    double a = *(const double *)x, b = *(const double *)y;
    return (a > b) - (a < b);
}

extern "C" cuzk_err cuzk_gpu_bench_ntt(cuzk_gpu *g, unsigned log_n, int reps, double ms[4])
{
    CUZK_TRY(check_log(log_n));
    if (reps < 1 || reps > 64)
        return cuzk_fail(CUZK_EINVAL, "GPU NTT bench: reps %d outside 1..64", reps);
    GPU_TRY(cudaSetDevice(g->ordinal), "select device");
    CUZK_TRY(ntt_tables(g, log_n));
    size_t n = (size_t)1 << log_n;
    void *d;
    CUZK_TRY(gpu_alloc(&d, n * sizeof(fr_t), "NTT bench data"));
    gpu_rand_fr(g, d, n, 12345);
    ntt_device(g, CUZK_GPU_NTT_FORWARD, log_n, (fr_t *)d); /* warm-up */
    double t[4][64];
    cudaEvent_t e0 = g->ev[0], e1 = g->ev[3];
    for (int r = 0; r < reps; r++)
        for (int k = 0; k < 4; k++) {
            cudaEventRecord(e0, g->stream);
            ntt_device(g, (cuzk_gpu_ntt_kind)k, log_n, (fr_t *)d);
            cudaEventRecord(e1, g->stream);
            cudaError_t e = cudaEventSynchronize(e1);
            if (e == cudaSuccess)
                e = cudaGetLastError();
            if (e != cudaSuccess) {
                cudaFree(d);
                return gpu_fail(e, "NTT bench");
            }
            float f;
            cudaEventElapsedTime(&f, e0, e1);
            t[k][r] = f;
        }
    for (int k = 0; k < 4; k++) {
        qsort(t[k], (size_t)reps, sizeof(double), cmp_double);
        ms[k] = t[k][reps / 2];
    }
    cudaFree(d);
    return CUZK_OK;
}
