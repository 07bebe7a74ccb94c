/* The witness side of a proof on the device: a, b, c = A.w, B.w, C.w from
 * a constraint system kept on the device and a packed witness.
 *
 * The PCE's whole image (header, coefficients, CSR arrays, densities) is
 * copied once, as is, and found again by its body checksum and size, so the
 * arrays sit at the same offsets from the copy's start as in the host image.
 * After it, a small table gives each coefficient id its kind (1, -1, 2 or
 * anything else), as the CPU SpMV does, so most non-zeros cost an addition;
 * a 0/1 variable is read as its bit in the packed witness, not as a field
 * element (it then adds its coefficient or nothing).
 *
 * The packed witness (wpack.h: bits for the 0/1 values, field elements for
 * the rest) goes up in one buffer and one kernel expands it, one thread per
 * element: a small element comes from its ones bit, any other from the
 * dense array at its word's offset plus a popcount.
 *
 * The SpMV runs one thread per row over all three matrices, their terms
 * interleaved (the field is exact: the CPU's sums), and checks the row:
 * where a*b != c it lowers a device counter to its index with atomicMin, so
 * the first failing row is named whatever the scheduling. The rows beyond
 * the constraints are zeroed, as H's transforms need. */
#include <stdio.h>
#include <string.h>

#include "field.cuh"
#include "gpu_internal.h"

enum { K_MUL, K_ONE, K_MINUS_ONE, K_TWO };

typedef struct {
    const uint32_t *row_ptr[3], *col[3], *coef[3];
    const fr_t *coeffs;
    const uint8_t *kind;
    const fr_t *w;
    const uint64_t *small, *ones; /* the packed witness's 0/1 bitmaps */
    int bits;                     /* read 0/1 variables from them (else all from w) */
    fr_t *out[3];
    uint64_t rows;
    unsigned long long *bad;
} spmv_args;

__global__ void k_pce_kinds(uint8_t *kind, const fr_t *coeffs, uint32_t n)
{
    fr_t one = fr_one(), minus_one = fr_neg(one), two = fr_dbl(one);
    for (uint32_t i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += gridDim.x * blockDim.x) {
        fr_t v = coeffs[i];
        kind[i] = fr_eq(v, one)         ? K_ONE
                  : fr_eq(v, minus_one) ? K_MINUS_ONE
                  : fr_eq(v, two)       ? K_TWO
                                        : K_MUL;
    }
}

__global__ void k_wpack_expand(fr_t *w, const uint64_t *small, const uint64_t *ones,
                               const uint32_t *before, const fr_t *dense, uint64_t n)
{
    for (uint64_t j = blockIdx.x * (uint64_t)blockDim.x + threadIdx.x; j < n;
         j += (uint64_t)gridDim.x * blockDim.x) {
        uint64_t k = j >> 6, s = small[k];
        unsigned b = (unsigned)(j & 63);
        fr_t v;
        if (s >> b & 1)
            v = (ones[k] >> b & 1) ? fr_one() : fr_zero();
        else
            v = dense[before[k] + (unsigned)__popcll(~s & ((1ull << b) - 1))];
        w[j] = v;
    }
}

/* acc plus one term, coefficient id times variable c. A 0/1 variable (its
 * bit in small) is read from the ones bitmap, 8 bytes shared by 64
 * variables, rather than as a 32-byte element of w: a 0 adds nothing and a
 * 1 adds the coefficient itself. */
static __device__ __forceinline__ fr_t term_add(const spmv_args &A, fr_t acc, uint32_t c,
                                                uint32_t id)
{
    const uint32_t word = c >> 6, bit = c & 63;
    const bool bin = A.bits && (A.small[word] >> bit & 1);
    if (bin && !(A.ones[word] >> bit & 1))
        return acc;
    const fr_t x = bin ? fr_one() : A.w[c];
    switch (A.kind[id]) {
    case K_ONE: return fr_add(acc, x);
    case K_MINUS_ONE: return fr_sub(acc, x);
    case K_TWO: return fr_add(acc, fr_dbl(x));
    default: return fr_add(acc, bin ? A.coeffs[id] : fr_mul(A.coeffs[id], x));
    }
}

/* Row r of A, B and C with their terms interleaved (the k-th term of each
 * in one step), so that a thread has three independent chains of loads in
 * flight instead of one; the sums are the same (the field is exact). Loading
 * the terms of a step before summing any, or several terms of A a step
 * (120-192 registers against 76), measured slower: PoSt's 1.25e8 rows 121
 * to 198 ms against 91, the 2^26 PoRep shape's 13.5-22.3 against 8.4 (H100). */
__global__ void __launch_bounds__(256) k_spmv_check(spmv_args A)
{
    for (uint64_t r = blockIdx.x * (uint64_t)blockDim.x + threadIdx.x; r < A.rows;
         r += (uint64_t)gridDim.x * blockDim.x) {
        uint32_t k[3], e[3];
        fr_t acc[3];
#pragma unroll
        for (int m = 0; m < 3; m++) {
            k[m] = A.row_ptr[m][r];
            e[m] = A.row_ptr[m][r + 1];
            acc[m] = fr_zero();
        }
        while (k[0] < e[0] || k[1] < e[1] || k[2] < e[2]) {
            uint32_t c[3] = {0, 0, 0}, id[3] = {0, 0, 0};
#pragma unroll
            for (int m = 0; m < 3; m++)
                if (k[m] < e[m]) {
                    c[m] = A.col[m][k[m]];
                    id[m] = A.coef[m][k[m]];
                }
#pragma unroll
            for (int m = 0; m < 3; m++)
                if (k[m] < e[m]) {
                    acc[m] = term_add(A, acc[m], c[m], id[m]);
                    k[m]++;
                }
        }
        const fr_t a = acc[0], b = acc[1], c = acc[2];
        A.out[0][r] = a;
        A.out[1][r] = b;
        A.out[2][r] = c;
        if (!fr_eq(fr_mul(a, b), c))
            atomicMin(A.bad, (unsigned long long)r);
    }
}

/* CUZK_GPU_SPMV_PROFILE=1: the SpMV timed with events on stderr (the
 * host waits for it). */
static void spmv_run(cuzk_gpu *g, const spmv_args &A)
{
    cudaEvent_t ev[2] = {NULL, NULL};
    const int prof =
        env_uint("CUZK_GPU_SPMV_PROFILE", 0, 0, 1) && cudaEventCreate(&ev[0]) == cudaSuccess &&
        cudaEventCreate(&ev[1]) == cudaSuccess && cudaEventRecord(ev[0], g->stream) == cudaSuccess;
    k_spmv_check<<<gpu_grid_for(A.rows), 256, 0, g->stream>>>(A);
    float ms = -1;
    if (prof && (cudaEventRecord(ev[1], g->stream) != cudaSuccess ||
                 cudaEventSynchronize(ev[1]) != cudaSuccess ||
                 cudaEventElapsedTime(&ms, ev[0], ev[1]) != cudaSuccess))
        ms = -1;
    if (prof)
        fprintf(stderr, "spmv-profile rows=%llu ms=%.3f\n", (unsigned long long)A.rows, ms);
    for (int i = 0; i < 2; i++)
        if (ev[i])
            cudaEventDestroy(ev[i]);
}

size_t gpu_pce_bytes(const cuzk_gpu *g)
{
    size_t s = 0;
    for (int i = 0; i < GPU_MAX_PCE; i++)
        if (g->pce[i].dev)
            s += g->pce[i].bytes;
    return s;
}

void gpu_pce_forget(cuzk_gpu *g)
{
    for (int i = 0; i < GPU_MAX_PCE; i++) {
        if (g->pce[i].dev)
            cudaFree(g->pce[i].dev);
        memset(&g->pce[i], 0, sizeof g->pce[i]);
    }
}

extern "C" void cuzk_gpu_pce_forget(cuzk_gpu *g)
{
    cudaSetDevice(g->ordinal);
    gpu_pce_forget(g);
}

/* The device copy of p's image followed by its kinds table: found, or
 * uploaded into a free slot (the least recently used one evicted when the
 * slots or the memory run out). */
static cuzk_err pce_resident(cuzk_gpu *g, const cuzk_pce *p, const uint8_t **dev)
{
    size_t image_bytes;
    const uint8_t *image = cuzk_pce_image(p, &image_bytes);
    size_t kinds_at = (image_bytes + 63) & ~(size_t)63, bytes = kinds_at + p->n_coeffs + 1;
    uint64_t now = ++g->use_clock;
    for (int i = 0; i < GPU_MAX_PCE; i++)
        if (g->pce[i].dev && g->pce[i].checksum == p->checksum && g->pce[i].bytes == bytes) {
            g->pce[i].last_use = now;
            *dev = (const uint8_t *)g->pce[i].dev;
            return CUZK_OK;
        }
    void *d = NULL;
    for (;;) {
        int used = 0, lru = -1;
        for (int i = 0; i < GPU_MAX_PCE; i++)
            if (g->pce[i].dev) {
                used++;
                if (lru < 0 || g->pce[i].last_use < g->pce[lru].last_use)
                    lru = i;
            }
        /* other circuits' constraint systems go before any base set */
        cuzk_err rc = used >= GPU_MAX_PCE ? CUZK_ENOMEM
                      : lru >= 0          ? gpu_alloc(&d, bytes, "constraint system (PCE)")
                                 : gpu_alloc_for(g, &d, bytes, "constraint system (PCE)", 0);
        if (rc == CUZK_OK)
            break;
        if (rc != CUZK_ENOMEM || lru < 0)
            return rc;
        cudaFree(g->pce[lru].dev);
        memset(&g->pce[lru], 0, sizeof g->pce[lru]);
    }
    cuzk_err rc = gpu_copy_h2d(g, d, image, image_bytes);
    if (rc == CUZK_OK && p->n_coeffs) {
        const fr_t *coeffs =
            (const fr_t *)((const uint8_t *)d + ((const uint8_t *)p->coeffs - image));
        k_pce_kinds<<<gpu_grid_for(p->n_coeffs), 256, 0, g->stream>>>((uint8_t *)d + kinds_at,
                                                                      coeffs, p->n_coeffs);
        cudaError_t e = cudaStreamSynchronize(g->stream);
        if (e == cudaSuccess)
            e = cudaGetLastError();
        if (e != cudaSuccess)
            rc = gpu_fail(e, "constraint system (PCE): coefficient kinds");
    }
    if (rc) {
        cudaStreamSynchronize(g->stream);
        cudaFree(d);
        return rc;
    }
    for (int i = 0; i < GPU_MAX_PCE; i++)
        if (!g->pce[i].dev) {
            g->pce[i].checksum = p->checksum;
            g->pce[i].bytes = bytes;
            g->pce[i].dev = d;
            g->pce[i].last_use = now;
            break;
        }
    *dev = (const uint8_t *)d;
    return CUZK_OK;
}

cuzk_err gpu_pce_resident(cuzk_gpu *g, const cuzk_pce *p)
{
    const uint8_t *d;
    return pce_resident(g, p, &d);
}

/* ---- the next proof's packed witness, copied ahead ---------------------- */

static size_t packed_meta(const cuzk_wpack *wp)
{
    return (wp->meta_bytes + 63) & ~(size_t)63;
}

/* The device copy's size: meta (rounded up to 64 bytes), then dense. */
static size_t packed_bytes(const cuzk_wpack *wp)
{
    return packed_meta(wp) + (size_t)wp->n_dense * sizeof(fr_t);
}

/* wp into dev (packed_bytes of device memory) on stream s. */
static cuzk_err packed_upload(cuzk_gpu *g, cudaStream_t s, void *dev, const cuzk_wpack *wp)
{
    cuzk_err rc = gpu_copy_h2d_on(g, s, dev, wp->meta, wp->meta_bytes);
    if (!rc && wp->n_dense)
        rc = gpu_copy_h2d_on(g, s, (uint8_t *)dev + packed_meta(wp), wp->dense,
                             (size_t)wp->n_dense * sizeof(fr_t));
    return rc;
}

/* The prefetch's thread: the staged copies on the copy stream (the staging
 * buffers' lock makes them wait for any staged copy of the caller's). */
static void *prefetch_main(void *arg)
{
    cuzk_gpu *g = (cuzk_gpu *)arg;
    gpu_prefetch *f = &g->pf;
    cudaStream_t cs = gpu_copy_stream(g);
    f->ok = cudaSetDevice(g->ordinal) == cudaSuccess &&
            packed_upload(g, cs, f->dev, f->wp) == CUZK_OK &&
            cudaEventRecord(f->done, cs) == cudaSuccess;
    if (!f->ok)
        cudaGetLastError();
    return NULL;
}

/* Start copying wp to the device on the copy stream, from a thread, so the
 * caller goes on enqueueing its kernels. Best effort: without a copy stream
 * of its own, an event, device memory for it or a thread, nothing starts. */
static void prefetch_start(cuzk_gpu *g, const cuzk_wpack *wp)
{
    gpu_prefetch *f = &g->pf;
    if (gpu_copy_stream(g) == g->stream) /* made here, not on the thread */
        return;
    if (!f->done && cudaEventCreateWithFlags(&f->done, cudaEventDisableTiming) != cudaSuccess) {
        cudaGetLastError();
        f->done = NULL;
        return;
    }
    void *d = NULL;
    if (gpu_alloc_kept_try(&d, packed_bytes(wp))) /* no room: it goes up in its own turn */
        return;
    f->wp = wp;
    f->dev = d;
    f->ok = 0;
    if (pthread_create(&f->thread, NULL, prefetch_main, g)) {
        gpu_free(d);
        f->wp = NULL;
        f->dev = NULL;
        return;
    }
    f->live = 1;
}

void gpu_prefetch_drop(cuzk_gpu *g)
{
    gpu_prefetch *f = &g->pf;
    if (f->live)
        pthread_join(f->thread, NULL);
    f->live = 0;
    if (f->dev) {
        cudaStreamSynchronize(gpu_copy_stream(g)); /* the copy has stopped reading wp */
        gpu_free(f->dev);
    }
    f->dev = NULL;
    f->wp = NULL;
}

extern "C" void cuzk_gpu_prefetch_drop(cuzk_gpu *g)
{
    cudaSetDevice(g->ordinal);
    gpu_prefetch_drop(g);
}

void *gpu_prefetch_take(cuzk_gpu *g, const cuzk_wpack *wp)
{
    gpu_prefetch *f = &g->pf;
    void *d = NULL;
    if (!f->wp)
        return NULL;
    if (f->live)
        pthread_join(f->thread, NULL);
    f->live = 0;
    if (f->wp == wp && f->ok) {
        if (cudaStreamWaitEvent(g->stream, f->done, 0) == cudaSuccess) {
            d = f->dev;
            f->dev = NULL;
        } else {
            cudaGetLastError();
        }
    }
    gpu_prefetch_drop(g);
    return d;
}

cuzk_err gpu_pce_abc(cuzk_gpu *g, const cuzk_pce *p, const cuzk_wpack *wp, void *pre,
                     const cuzk_wpack *next, void *dw, void *v[3], unsigned long long *bad,
                     void **packed)
{
    *packed = NULL;
    uint64_t n_vars = (uint64_t)p->n_inputs + p->n_aux;
    cuzk_err rc = CUZK_OK;
    const uint8_t *d;
    if (wp->n != n_vars)
        rc = cuzk_fail(CUZK_EINVAL,
                       "device SpMV: the packed witness has %llu elements, the "
                       "constraint system %llu variables",
                       (unsigned long long)wp->n, (unsigned long long)n_vars);
    if (!rc)
        rc = pce_resident(g, p, &d);
    if (rc) {
        gpu_free(pre);
        return rc;
    }
    size_t image_bytes;
    const uint8_t *image = cuzk_pce_image(p, &image_bytes);
    void *pk = pre;
    if (!pk) {
        CUZK_TRY(gpu_alloc_for(g, &pk, packed_bytes(wp), "packed witness", 1));
        rc = packed_upload(g, g->stream, pk, wp);
        if (rc) {
            cudaStreamSynchronize(g->stream);
            gpu_free(pk);
            return rc;
        }
    }
    gpu_times_mark(g, 1);
    if (next && next != wp)
        prefetch_start(g, next);
    const uint64_t *small = (const uint64_t *)pk, *ones = small + wp->words;
    const uint32_t *before = (const uint32_t *)(ones + wp->words);
    k_wpack_expand<<<gpu_grid_for(n_vars), 256, 0, g->stream>>>(
        (fr_t *)dw, small, ones, before, (const fr_t *)((uint8_t *)pk + packed_meta(wp)), n_vars);
    spmv_args A;
    const cuzk_csr *m[3] = {&p->a, &p->b, &p->c};
#define DEV(ptr) ((const uint32_t *)(d + ((const uint8_t *)(ptr)-image)))
    for (int k = 0; k < 3; k++) {
        A.row_ptr[k] = DEV(m[k]->row_ptr);
        A.col[k] = DEV(m[k]->col);
        A.coef[k] = DEV(m[k]->coef);
        A.out[k] = (fr_t *)v[k];
    }
#undef DEV
    A.coeffs = (const fr_t *)(d + ((const uint8_t *)p->coeffs - image));
    A.kind = d + ((image_bytes + 63) & ~(size_t)63);
    A.w = (const fr_t *)dw;
    A.small = small;
    A.ones = ones;
    A.bits = env_uint("CUZK_GPU_SPMV_BITS", 1, 0, 1); /* 0: every variable from w, to compare */
    A.rows = p->n_constraints;
    A.bad = bad;
    size_t n = (size_t)1 << p->log_domain;
    cudaMemsetAsync(bad, 0xff, sizeof *bad, g->stream);
    for (int k = 0; k < 3; k++)
        cudaMemsetAsync((fr_t *)v[k] + A.rows, 0, (n - A.rows) * sizeof(fr_t), g->stream);
    spmv_run(g, A);
    cudaError_t e = cudaGetLastError();
    if (e != cudaSuccess) {
        cudaStreamSynchronize(g->stream);
        gpu_free(pk);
        return gpu_fail(e, "device SpMV: launch");
    }
    *packed = pk;
    return CUZK_OK;
}
