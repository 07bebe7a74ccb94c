/* Fixed-base scalar multiplication on the device, for setup: k_i * B for
 * millions of scalars k_i and one base B (a generator of G1 or G2), giving
 * the same affine points as curve.h's cuzk_g1_fixed_mul_batch.
 *
 * Table: nwin = ceil(255/w) rows of 2^w affine points, t[j 2^w + d] =
 * d 2^(w j) B, made on the device from the nwin row bases (computed on the
 * host with blst: w doublings per row) in one kernel, and kept for the life
 * of the cuzk_gpu_fixed. With w = 16 (the default) a scalar costs 16 mixed
 * additions and no doublings; the table is 100 MiB for G1, 200 MiB for G2.
 *
 * Affine conversion: one inversion per thread serves `batch` points
 * (Montgomery's trick over the points of a thread, XYZZ results kept in
 * device scratch); batch = 1 is a plain per-point Fermat inversion.
 * CUZK_GPU_FIXED_BATCH and CUZK_GPU_FIXED_WBITS override both (tuning).
 *
 * Pipeline: two slots, each with its stream, device buffers for one chunk,
 * and pinned host buffers for its scalars and points. submit() copies the
 * scalars into a free slot's pinned buffer and enqueues copy in, kernel and
 * copy out; collect() waits for the oldest chunk and lends its points. So the
 * caller encodes and writes chunk i while the device computes chunk i+1,
 * and the copies of one slot overlap the kernel of the other. */
#include <cuda_runtime.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "curve.cuh"
#include "gpu_internal.h"

#define CRV g1
#define CF fp
#include "fixed_impl.cuh"
#undef CRV
#undef CF

#define CRV g2
#define CF fp2
#include "fixed_impl.cuh"
#undef CRV
#undef CF

#define FIXED_WBITS 16
#define FIXED_BATCH 16
#define FIXED_CHUNK_G1 ((size_t)1 << 22)
#define FIXED_CHUNK_G2 ((size_t)1 << 21)
#define FIXED_THREADS 128

enum { SLOT_FREE, SLOT_BUSY, SLOT_LENT };

typedef struct {
    cudaStream_t stream;
    cudaEvent_t done;
    void *d_k, *d_acc, *d_pre, *d_out; /* device: scalars, XYZZ, prefixes, points */
    void *h_k, *h_out;                 /* pinned host */
    size_t n;
    int state;
    uint64_t seq; /* submission order */
} fixed_slot;

struct cuzk_gpu_fixed {
    cuzk_gpu *g;
    int g2;
    unsigned wbits, nwin, batch;
    size_t aff, xyzz, fe, chunk;
    void *table;
    fixed_slot slot[2];
    uint64_t next_seq;
};

extern "C" void cuzk_gpu_fixed_free(cuzk_gpu_fixed *f)
{
    if (!f)
        return;
    cudaSetDevice(f->g->ordinal);
    for (int s = 0; s < 2; s++) {
        fixed_slot *sl = &f->slot[s];
        if (sl->stream)
            cudaStreamSynchronize(sl->stream);
        cudaFree(sl->d_k);
        cudaFree(sl->d_acc);
        cudaFree(sl->d_pre);
        cudaFree(sl->d_out);
        gpu_pinned_free(sl->h_k);
        gpu_pinned_free(sl->h_out);
        if (sl->done)
            cudaEventDestroy(sl->done);
        if (sl->stream)
            cudaStreamDestroy(sl->stream);
    }
    cudaFree(f->table);
    cudaGetLastError();
    free(f);
}

static cuzk_err pinned_alloc(void **p, size_t bytes, const char *what)
{
    cuzk_err rc = gpu_pinned_alloc(p, bytes, what);
    return rc ? cuzk_fail_ctx(rc, "GPU fixed-base: ") : CUZK_OK;
}

/* The table rows 2^(w j) B as affine points, on the host with blst. */
static cuzk_err row_bases(int g2, const void *base, unsigned w, unsigned nwin, void *rows)
{
    if (g2) {
        blst_p2 b = *(const blst_p2 *)base;
        for (unsigned j = 0; j < nwin; j++) {
            blst_p2_to_affine((blst_p2_affine *)rows + j, &b);
            for (unsigned i = 0; i < w; i++)
                blst_p2_double(&b, &b);
        }
    } else {
        blst_p1 b = *(const blst_p1 *)base;
        for (unsigned j = 0; j < nwin; j++) {
            blst_p1_to_affine((blst_p1_affine *)rows + j, &b);
            for (unsigned i = 0; i < w; i++)
                blst_p1_double(&b, &b);
        }
    }
    return CUZK_OK;
}

static cuzk_err fixed_open(cuzk_gpu *g, int g2, const void *base, size_t chunk,
                           cuzk_gpu_fixed **out)
{
    if (!out)
        return cuzk_fail(CUZK_EINVAL, "GPU fixed-base: out is NULL");
    *out = NULL;
    if (!g || !base)
        return cuzk_fail(CUZK_EINVAL, "GPU fixed-base: %s is NULL", g ? "base" : "GPU handle");
    if (chunk > ((size_t)1 << 30))
        return cuzk_fail(CUZK_EINVAL, "GPU fixed-base: chunk of %zu scalars exceeds 2^30", chunk);
    if (g2 ? blst_p2_is_inf((const blst_p2 *)base) : blst_p1_is_inf((const blst_p1 *)base))
        return cuzk_fail(CUZK_EINVAL, "GPU fixed-base: the base is the point at infinity");
    GPU_TRY(cudaSetDevice(g->ordinal), "select device");
    cuzk_gpu_fixed *f = (cuzk_gpu_fixed *)calloc(1, sizeof *f);
    if (!f)
        return cuzk_fail(CUZK_ENOMEM, "GPU fixed-base: out of host memory");
    f->g = g;
    f->g2 = g2;
    f->wbits = env_uint("CUZK_GPU_FIXED_WBITS", FIXED_WBITS, 4, 22);
    f->nwin = (255 + f->wbits - 1) / f->wbits;
    f->batch = env_uint("CUZK_GPU_FIXED_BATCH", FIXED_BATCH, 1, 256);
    f->aff = g2 ? sizeof(g2_aff_t) : sizeof(g1_aff_t);
    f->xyzz = g2 ? sizeof(g2_xyzz_t) : sizeof(g1_xyzz_t);
    f->fe = g2 ? sizeof(fp2_t) : sizeof(fp_t);
    f->chunk = chunk ? chunk : g2 ? FIXED_CHUNK_G2 : FIXED_CHUNK_G1;

    size_t total = (size_t)f->nwin << f->wbits;
    void *rows_h = malloc(f->nwin * f->aff), *rows_d = NULL;
    cuzk_err rc = rows_h ? CUZK_OK : cuzk_fail(CUZK_ENOMEM, "GPU fixed-base: out of host memory");
    if (!rc)
        rc = row_bases(g2, base, f->wbits, f->nwin, rows_h);
    if (!rc)
        rc = gpu_alloc(&f->table, total * f->aff, "fixed-base table");
    if (!rc)
        rc = gpu_alloc(&rows_d, f->nwin * f->aff, "fixed-base table rows");
    cudaStream_t st = g->stream;
    if (!rc) {
        cudaError_t e =
            cudaMemcpyAsync(rows_d, rows_h, f->nwin * f->aff, cudaMemcpyHostToDevice, st);
        unsigned blocks = (unsigned)((total + FIXED_THREADS - 1) / FIXED_THREADS);
        if (e == cudaSuccess) {
            if (g2)
                g2_k_fixed_table<<<blocks, FIXED_THREADS, 0, st>>>(
                    (g2_aff_t *)f->table, (const g2_aff_t *)rows_d, f->wbits, total);
            else
                g1_k_fixed_table<<<blocks, FIXED_THREADS, 0, st>>>(
                    (g1_aff_t *)f->table, (const g1_aff_t *)rows_d, f->wbits, total);
            e = cudaGetLastError();
        }
        if (e == cudaSuccess)
            e = cudaStreamSynchronize(st);
        if (e != cudaSuccess)
            rc = gpu_fail(e, "fixed-base table");
    }
    cudaFree(rows_d);
    free(rows_h);
    for (int s = 0; s < 2 && !rc; s++) {
        fixed_slot *sl = &f->slot[s];
        size_t c = f->chunk;
        cudaError_t e = cudaStreamCreateWithFlags(&sl->stream, cudaStreamNonBlocking);
        if (e == cudaSuccess)
            e = cudaEventCreateWithFlags(&sl->done, cudaEventDisableTiming);
        if (e != cudaSuccess) {
            rc = gpu_fail(e, "fixed-base streams");
            break;
        }
        if ((rc = gpu_alloc(&sl->d_k, c * sizeof(fr_t), "fixed-base scalars")) ||
            (rc = gpu_alloc(&sl->d_acc, c * f->xyzz, "fixed-base XYZZ scratch")) ||
            (rc = gpu_alloc(&sl->d_pre, c * f->fe, "fixed-base prefix products")) ||
            (rc = gpu_alloc(&sl->d_out, c * f->aff, "fixed-base points")) ||
            (rc = pinned_alloc(&sl->h_k, c * sizeof(fr_t), "scalars")) ||
            (rc = pinned_alloc(&sl->h_out, c * f->aff, "points")))
            break;
    }
    if (rc) {
        cuzk_gpu_fixed_free(f);
        return rc;
    }
    *out = f;
    return CUZK_OK;
}

extern "C" cuzk_err cuzk_gpu_fixed_open_g1(cuzk_gpu *g, const blst_p1 *base, size_t chunk,
                                           cuzk_gpu_fixed **out)
{
    return fixed_open(g, 0, base, chunk, out);
}

extern "C" cuzk_err cuzk_gpu_fixed_open_g2(cuzk_gpu *g, const blst_p2 *base, size_t chunk,
                                           cuzk_gpu_fixed **out)
{
    return fixed_open(g, 1, base, chunk, out);
}

extern "C" size_t cuzk_gpu_fixed_chunk(const cuzk_gpu_fixed *f)
{
    return f ? f->chunk : 0;
}

/* Copy in, kernel, copy out and the completion event, on the slot's stream. */
static cuzk_err slot_enqueue(cuzk_gpu_fixed *f, fixed_slot *sl, const cuzk_fr *k, size_t n)
{
    cudaStream_t st = sl->stream;
    if (n) {
        gpu_par_memcpy(sl->h_k, k, n * sizeof(fr_t));
        GPU_TRY(cudaMemcpyAsync(sl->d_k, sl->h_k, n * sizeof(fr_t), cudaMemcpyHostToDevice, st),
                "fixed-base scalars to device");
        size_t threads = (n + f->batch - 1) / f->batch;
        unsigned blocks = (unsigned)((threads + FIXED_THREADS - 1) / FIXED_THREADS);
        if (f->g2)
            g2_k_fixed_mul<<<blocks, FIXED_THREADS, 0, st>>>(
                (g2_aff_t *)sl->d_out, (g2_xyzz_t *)sl->d_acc, (fp2_t *)sl->d_pre,
                (const fr_t *)sl->d_k, n, (const g2_aff_t *)f->table, f->wbits, f->nwin, f->batch);
        else
            g1_k_fixed_mul<<<blocks, FIXED_THREADS, 0, st>>>(
                (g1_aff_t *)sl->d_out, (g1_xyzz_t *)sl->d_acc, (fp_t *)sl->d_pre,
                (const fr_t *)sl->d_k, n, (const g1_aff_t *)f->table, f->wbits, f->nwin, f->batch);
        GPU_TRY(cudaGetLastError(), "fixed-base kernel launch");
        GPU_TRY(cudaMemcpyAsync(sl->h_out, sl->d_out, n * f->aff, cudaMemcpyDeviceToHost, st),
                "fixed-base points to host");
    }
    GPU_TRY(cudaEventRecord(sl->done, st), "fixed-base event");
    return CUZK_OK;
}

extern "C" cuzk_err cuzk_gpu_fixed_submit(cuzk_gpu_fixed *f, const cuzk_fr *k, size_t n)
{
    if (!f)
        return cuzk_fail(CUZK_EINVAL, "GPU fixed-base submit: table is NULL");
    if (n > f->chunk)
        return cuzk_fail(CUZK_EINVAL, "GPU fixed-base submit: %zu scalars exceed the chunk of %zu",
                         n, f->chunk);
    if (n && !k)
        return cuzk_fail(CUZK_EINVAL, "GPU fixed-base submit: scalars are NULL");
    /* Points lent by an earlier collect are the caller's no longer. */
    for (int s = 0; s < 2; s++)
        if (f->slot[s].state == SLOT_LENT)
            f->slot[s].state = SLOT_FREE;
    fixed_slot *sl = NULL;
    for (int s = 0; s < 2 && !sl; s++)
        if (f->slot[s].state == SLOT_FREE)
            sl = &f->slot[s];
    if (!sl)
        return cuzk_fail(CUZK_EINVAL,
                         "GPU fixed-base submit: two chunks are in flight; collect one first");
    GPU_TRY(cudaSetDevice(f->g->ordinal), "select device");
    sl->n = n;
    sl->seq = f->next_seq++;
    sl->state = SLOT_BUSY;
    cuzk_err rc = slot_enqueue(f, sl, k, n);
    if (rc)
        sl->state = SLOT_FREE;
    return rc;
}

extern "C" cuzk_err cuzk_gpu_fixed_collect(cuzk_gpu_fixed *f, const void **pts, size_t *n)
{
    if (!f || !pts || !n)
        return cuzk_fail(CUZK_EINVAL, "GPU fixed-base collect: NULL argument");
    *pts = NULL;
    *n = 0;
    fixed_slot *sl = NULL;
    for (int s = 0; s < 2; s++)
        if (f->slot[s].state == SLOT_BUSY && (!sl || f->slot[s].seq < sl->seq))
            sl = &f->slot[s];
    if (!sl)
        return cuzk_fail(CUZK_EINVAL, "GPU fixed-base collect: no chunk was submitted");
    for (int s = 0; s < 2; s++)
        if (f->slot[s].state == SLOT_LENT)
            f->slot[s].state = SLOT_FREE;
    cudaError_t e = cudaEventSynchronize(sl->done);
    sl->state = SLOT_LENT;
    if (e != cudaSuccess) {
        sl->state = SLOT_FREE;
        return gpu_fail(e, "fixed-base multiplication");
    }
    *pts = sl->h_out;
    *n = sl->n;
    return CUZK_OK;
}

/* out[i] = k[i] B for any n, chunk by chunk with two chunks in flight. */
static cuzk_err fixed_mul(cuzk_gpu_fixed *f, void *out, const cuzk_fr *k, size_t n)
{
    if (n && (!out || !k))
        return cuzk_fail(CUZK_EINVAL, "GPU fixed-base: %s is NULL", out ? "k" : "out");
    size_t c = f->chunk, nch = (n + c - 1) / c;
    if (!nch)
        return CUZK_OK;
    CUZK_TRY(cuzk_gpu_fixed_submit(f, k, n < c ? n : c));
    for (size_t i = 0; i < nch; i++) {
        if (i + 1 < nch) {
            size_t lo = (i + 1) * c, m = n - lo < c ? n - lo : c;
            CUZK_TRY(cuzk_gpu_fixed_submit(f, k + lo, m));
        }
        const void *pts;
        size_t m;
        CUZK_TRY(cuzk_gpu_fixed_collect(f, &pts, &m));
        gpu_par_memcpy((unsigned char *)out + i * c * f->aff, pts, m * f->aff);
    }
    return CUZK_OK;
}

extern "C" cuzk_err cuzk_gpu_fixed_mul(cuzk_gpu_fixed *f, void *out, const cuzk_fr *k, size_t n)
{
    if (!f)
        return cuzk_fail(CUZK_EINVAL, "GPU fixed-base: table is NULL");
    for (int s = 0; s < 2; s++)
        if (f->slot[s].state == SLOT_BUSY)
            return cuzk_fail(CUZK_EINVAL, "GPU fixed-base mul: chunks submitted are still in "
                                          "flight; collect them first");
    return fixed_mul(f, out, k, n);
}

static cuzk_err fixed_once(cuzk_gpu *g, int g2, void *out, const void *base, const cuzk_fr *k,
                           size_t n)
{
    if (n && (!out || !k))
        return cuzk_fail(CUZK_EINVAL, "GPU fixed-base: %s is NULL", out ? "k" : "out");
    size_t dflt = g2 ? FIXED_CHUNK_G2 : FIXED_CHUNK_G1;
    cuzk_gpu_fixed *f;
    CUZK_TRY(fixed_open(g, g2, base, n < dflt ? (n ? n : 1) : dflt, &f));
    cuzk_err rc = fixed_mul(f, out, k, n);
    cuzk_gpu_fixed_free(f);
    return rc;
}

extern "C" cuzk_err cuzk_gpu_fixed_mul_g1(cuzk_gpu *g, blst_p1_affine *out, const blst_p1 *base,
                                          const cuzk_fr *k, size_t n)
{
    return fixed_once(g, 0, out, base, k, n);
}

extern "C" cuzk_err cuzk_gpu_fixed_mul_g2(cuzk_gpu *g, blst_p2_affine *out, const blst_p2 *base,
                                          const cuzk_fr *k, size_t n)
{
    return fixed_once(g, 1, out, base, k, n);
}
