/* GPU discovery and the cuzk_gpu handle: how many devices, a one-line
 * description of each, opening a device (stream + events), CUDA errors
 * turned into cuzk_err messages, the event timing every operation reports,
 * and host<->device copies through pinned staging buffers. The operations
 * themselves live in ntt.cu and msm.cu.
 *
 * Staging: the driver copies pageable memory at ~7 GB/s on the H200 host
 * (measured: 96 MiB in 13 ms). Two pinned buffers of 64 MiB alternate: the
 * thread pool memcpy's one chunk into a buffer while the DMA engine drains
 * the other, so a copy runs near the host's memcpy bandwidth. The memcpy
 * uses threads of its own (gpu_par_memcpy), never the compute pool. */
#include <cuda_runtime.h>
#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "gpu_internal.h"

extern "C" {
#include "cuzk/log.h"
#include "cuzk/util.h" /* cuzk_now */
}

#define STAGE_BYTES ((size_t)64 << 20)

extern "C" int cuzk_gpu_count(void)
{
    int n = 0;
    if (cudaGetDeviceCount(&n) != cudaSuccess) {
        cudaGetLastError(); /* clear the sticky "no device" error */
        return 0;
    }
    return n;
}

extern "C" cuzk_err cuzk_gpu_describe(int ordinal, char *buf, size_t cap)
{
    cudaDeviceProp p;
    cudaError_t e = cudaGetDeviceProperties(&p, ordinal);
    if (e != cudaSuccess)
        return cuzk_fail(CUZK_EINVAL, "GPU %d: %s", ordinal, cudaGetErrorString(e));
    size_t free_b = 0, total_b = 0;
    if (cudaSetDevice(ordinal) == cudaSuccess)
        cudaMemGetInfo(&free_b, &total_b);
    snprintf(buf, cap, "gpu=%d name=\"%s\" sm=%d%d sms=%d mem_total=%zu mem_free=%zu", ordinal,
             p.name, p.major, p.minor, p.multiProcessorCount, (size_t)p.totalGlobalMem, free_b);
    return CUZK_OK;
}

cuzk_err gpu_fail(cudaError_t e, const char *what)
{
    cudaGetLastError(); /* clear a non-sticky error so the handle stays usable */
    if (e == cudaErrorMemoryAllocation)
        return cuzk_fail(CUZK_ENOMEM, "GPU out of memory: %s", what);
    return cuzk_fail(CUZK_EINTERNAL, "GPU: %s: %s", what, cudaGetErrorString(e));
}

/* The MSM scratch arena of each device: kept between MSMs (allocating
 * tens of GB per MSM cost more than some MSMs themselves), released when
 * any other allocation on its device runs out of memory while it is idle. */
#define GPU_MAX_ARENAS 64
static struct {
    void *p;
    size_t bytes;
    int busy;
} g_arena[GPU_MAX_ARENAS];
static pthread_mutex_t g_arena_mu = PTHREAD_MUTEX_INITIALIZER;

/* Frees the current device's arena if idle; returns the bytes freed. */
static size_t arena_release_idle(void)
{
    int dev = 0;
    size_t freed = 0;
    if (cudaGetDevice(&dev) != cudaSuccess || dev < 0 || dev >= GPU_MAX_ARENAS)
        return 0;
    pthread_mutex_lock(&g_arena_mu);
    if (g_arena[dev].p && !g_arena[dev].busy) {
        cudaFree(g_arena[dev].p);
        freed = g_arena[dev].bytes;
        g_arena[dev].p = NULL;
        g_arena[dev].bytes = 0;
    }
    pthread_mutex_unlock(&g_arena_mu);
    if (freed)
        CUZK_DEBUG("gpu=%d event=msm_arena_given_back mib=%.0f", dev, freed / 1048576.0);
    return freed;
}

/* The bytes of device dev's arena while idle (else 0). */
static size_t arena_idle(int dev)
{
    size_t b = 0;
    if (dev < 0 || dev >= GPU_MAX_ARENAS)
        return 0;
    pthread_mutex_lock(&g_arena_mu);
    if (!g_arena[dev].busy)
        b = g_arena[dev].bytes;
    pthread_mutex_unlock(&g_arena_mu);
    return b;
}

size_t gpu_arena_idle_bytes(const cuzk_gpu *g)
{
    return arena_idle(g->ordinal) + gpu_kept_bytes(g->ordinal);
}

/* Blocks kept after use. A proof allocates and frees the same tens of GB every partition (H's
 * vectors, the witness, the packed witness, the MSMs' split lists), and cudaMalloc and cudaFree of
 * a GB-sized block map or unmap its pages while the device waits. gpu_alloc_kept takes a kept
 * block of the size asked (or up to 1/8 larger) when there is one, and gpu_free keeps a block
 * gpu_alloc_kept handed out instead of freeing it (new blocks are rounded up to 64 MiB so that
 * sizes that vary a little still find theirs). cudaFree synchronizes the device, so gpu_free does
 * too before keeping a block: whoever takes it next finds no kernel of its last owner still using
 * it. Kept blocks count as free memory (like the idle arena) and go back to CUDA, the least
 * recently kept first, as soon as a new block (gpu_alloc, the arena) would leave less than
 * KEEP_HEADROOM free (keep_make_room), when the table is full, and when a handle closes. Blocks
 * below keep_min() (64 MiB; CUZK_GPU_KEEP_MIN_MIB for tests, whose proofs are small) are not kept,
 * nor any while less than KEEP_HEADROOM of the device is free besides them: a kernel's first
 * launch may need device memory (its code, a deeper stack), and no allocation of ours is there to
 * give kept blocks back for it. Off by default: every block is freed at once, as cudaFree would;
 * CUZK_GPU_KEEP_BLOCKS=1 keeps them. On the H200 keeping them made the engine's 2^27 partitions
 * faster (13.63 s per 10-partition proof against 14.17) but a 32 GiB WindowPoSt slower (3.92 s of
 * device time against 3.56) while a full device gave every kept block and the MSM arena back at
 * each allocation that failed; keep_make_room, which avoids those failures, has not been measured
 * yet. The allocation bench keeps blocks whatever the setting (g_keep_bench).
 */
#define KEEP_SLOTS 64
#define KEEP_HEADROOM ((size_t)2 << 30)
static struct {
    void *p;
    size_t bytes;
    int dev;
    int kept; /* 0: handed out (tracked for gpu_free), 1: kept */
    uint64_t last;
} g_keep[KEEP_SLOTS];
static uint64_t g_keep_clock;
static pthread_mutex_t g_keep_mu = PTHREAD_MUTEX_INITIALIZER;

static int g_keep_bench;

static int keep_on(void)
{
    return g_keep_bench || env_uint("CUZK_GPU_KEEP_BLOCKS", 0, 0, 1);
}

static size_t keep_min(void)
{
    return (size_t)env_uint("CUZK_GPU_KEEP_MIN_MIB", 64, 1, 1u << 16) << 20;
}

/* Frees the kept blocks of device dev (all of them, or the least recently
 * kept one when only_oldest); returns the bytes freed. Call with
 * g_keep_mu held. */
static size_t keep_release_locked(int dev, int only_oldest)
{
    size_t freed = 0;
    int oldest = -1;
    for (int i = 0; i < KEEP_SLOTS; i++) {
        if (!g_keep[i].p || !g_keep[i].kept || g_keep[i].dev != dev)
            continue;
        if (only_oldest) {
            if (oldest < 0 || g_keep[i].last < g_keep[oldest].last)
                oldest = i;
            continue;
        }
        cudaFree(g_keep[i].p);
        freed += g_keep[i].bytes;
        memset(&g_keep[i], 0, sizeof g_keep[i]);
    }
    if (oldest >= 0) {
        cudaFree(g_keep[oldest].p);
        freed = g_keep[oldest].bytes;
        memset(&g_keep[oldest], 0, sizeof g_keep[oldest]);
    }
    return freed;
}

/* Frees the current device's kept blocks; returns the bytes freed. */
static size_t keep_release(void)
{
    int dev = 0;
    if (cudaGetDevice(&dev) != cudaSuccess)
        return 0;
    pthread_mutex_lock(&g_keep_mu);
    size_t freed = keep_release_locked(dev, 0);
    pthread_mutex_unlock(&g_keep_mu);
    return freed;
}

/* Room for a new block of bytes on the current device: kept blocks go
 * back, the least recently kept first, until bytes and KEEP_HEADROOM are
 * free or none is left, so that a kept block never makes an allocation
 * fail (and then costs the idle MSM arena too: gpu_alloc) but only moves
 * the cudaFree that freeing it at once would have done. Returns the bytes
 * freed. */
static size_t keep_make_room(size_t bytes)
{
    int dev = 0;
    if (cudaGetDevice(&dev) != cudaSuccess) {
        cudaGetLastError();
        return 0;
    }
    size_t freed = 0;
    pthread_mutex_lock(&g_keep_mu);
    for (;;) {
        int any = 0;
        for (int i = 0; i < KEEP_SLOTS && !any; i++)
            any = g_keep[i].p && g_keep[i].kept && g_keep[i].dev == dev;
        if (!any)
            break;
        size_t free_b = 0, total_b = 0;
        if (cudaMemGetInfo(&free_b, &total_b) != cudaSuccess) {
            cudaGetLastError();
            break;
        }
        if (free_b >= bytes && free_b - bytes >= KEEP_HEADROOM)
            break;
        freed += keep_release_locked(dev, 1);
    }
    pthread_mutex_unlock(&g_keep_mu);
    return freed;
}

size_t gpu_kept_bytes(int dev)
{
    size_t b = 0;
    pthread_mutex_lock(&g_keep_mu);
    for (int i = 0; i < KEEP_SLOTS; i++)
        if (g_keep[i].p && g_keep[i].kept && g_keep[i].dev == dev)
            b += g_keep[i].bytes;
    pthread_mutex_unlock(&g_keep_mu);
    return b;
}

/* A kept block's size: up to the next keep_min(), so that a block asked for
 * again a little larger (a packed witness varies between partitions) fits. */
static size_t keep_round(size_t bytes)
{
    size_t m = keep_min();
    return (bytes + m - 1) / m * m;
}

/* A kept block of device dev for bytes (handed out), or NULL. */
static void *keep_take(int dev, size_t bytes)
{
    void *p = NULL;
    pthread_mutex_lock(&g_keep_mu);
    int best = -1;
    for (int i = 0; i < KEEP_SLOTS; i++)
        if (g_keep[i].p && g_keep[i].kept && g_keep[i].dev == dev && g_keep[i].bytes >= bytes &&
            g_keep[i].bytes - bytes <= bytes / 8 &&
            (best < 0 || g_keep[i].bytes < g_keep[best].bytes))
            best = i;
    if (best >= 0) {
        g_keep[best].kept = 0;
        p = g_keep[best].p;
    }
    pthread_mutex_unlock(&g_keep_mu);
    return p;
}

/* Tracks a new block p of device dev for gpu_free (untracked when the
 * table holds only blocks in use: gpu_free then frees it). */
static void keep_track(int dev, void *p, size_t bytes)
{
    pthread_mutex_lock(&g_keep_mu);
    int slot = -1;
    for (int i = 0; i < KEEP_SLOTS && slot < 0; i++)
        if (!g_keep[i].p)
            slot = i;
    if (slot < 0 && keep_release_locked(dev, 1)) /* the table is full: the oldest goes */
        for (int i = 0; i < KEEP_SLOTS && slot < 0; i++)
            if (!g_keep[i].p)
                slot = i;
    if (slot >= 0) {
        g_keep[slot].p = p;
        g_keep[slot].bytes = bytes;
        g_keep[slot].dev = dev;
        g_keep[slot].kept = 0;
    }
    pthread_mutex_unlock(&g_keep_mu);
}

cuzk_err gpu_alloc_kept(void **p, size_t bytes, const char *what)
{
    int dev = 0;
    *p = NULL;
    if (bytes < keep_min() || !keep_on() || cudaGetDevice(&dev) != cudaSuccess)
        return gpu_alloc(p, bytes, what);
    if ((*p = keep_take(dev, bytes)) != NULL)
        return CUZK_OK;
    bytes = keep_round(bytes);
    CUZK_TRY(gpu_alloc(p, bytes, what));
    keep_track(dev, *p, bytes);
    return CUZK_OK;
}

cuzk_err gpu_alloc_kept_try(void **p, size_t bytes)
{
    int dev = 0;
    *p = NULL;
    if (cudaGetDevice(&dev) != cudaSuccess) {
        cudaGetLastError();
        return CUZK_EINTERNAL;
    }
    int keep = bytes >= keep_min() && keep_on();
    if (keep && (*p = keep_take(dev, bytes)) != NULL)
        return CUZK_OK;
    if (keep)
        bytes = keep_round(bytes);
    keep_make_room(bytes);
    cudaError_t e = cudaMalloc(p, bytes ? bytes : 1);
    if (e == cudaErrorMemoryAllocation && keep) {
        cudaGetLastError();
        if (keep_release())
            e = cudaMalloc(p, bytes ? bytes : 1);
    }
    if (e != cudaSuccess) {
        cudaGetLastError();
        *p = NULL;
        return e == cudaErrorMemoryAllocation ? CUZK_ENOMEM : CUZK_EINTERNAL;
    }
    if (keep)
        keep_track(dev, *p, bytes);
    return CUZK_OK;
}

void gpu_free(void *p)
{
    if (!p)
        return;
    pthread_mutex_lock(&g_keep_mu);
    int slot = -1;
    for (int i = 0; i < KEEP_SLOTS && slot < 0; i++)
        if (g_keep[i].p == p && !g_keep[i].kept)
            slot = i;
    if (slot < 0 || !keep_on()) {
        if (slot >= 0)
            memset(&g_keep[slot], 0, sizeof g_keep[slot]);
        pthread_mutex_unlock(&g_keep_mu);
        cudaFree(p);
        return;
    }
    int dev = g_keep[slot].dev;
    pthread_mutex_unlock(&g_keep_mu);
    /* what cudaFree would have waited for; kept only if every use ended */
    int cur = -1;
    cudaGetDevice(&cur);
    cudaError_t e = cudaSetDevice(dev);
    if (e == cudaSuccess)
        e = cudaDeviceSynchronize();
    size_t free_b = 0, total_b = 0;
    if (e == cudaSuccess)
        e = cudaMemGetInfo(&free_b, &total_b);
    int keep = e == cudaSuccess && free_b >= KEEP_HEADROOM;
    if (cur >= 0)
        cudaSetDevice(cur);
    pthread_mutex_lock(&g_keep_mu);
    if (!keep) {
        cudaGetLastError();
        memset(&g_keep[slot], 0, sizeof g_keep[slot]);
        pthread_mutex_unlock(&g_keep_mu);
        cudaFree(p);
        return;
    }
    g_keep[slot].kept = 1;
    g_keep[slot].last = ++g_keep_clock;
    pthread_mutex_unlock(&g_keep_mu);
}

/* gpu.h cuzk_gpu_bench_alloc: each size taken and given back reps times
 * (after one untimed round), first by cudaMalloc and cudaFree (a kernel
 * touching every 4 KiB between them, as a proof's buffers are written),
 * then through gpu_alloc_kept and gpu_free with blocks kept. Host wall
 * times: the device waits for these calls between a proof's kernels. */
static __global__ void k_touch(uint8_t *p, size_t bytes)
{
    size_t i = ((size_t)blockIdx.x * blockDim.x + threadIdx.x) << 12;
    if (i < bytes)
        p[i] = 1;
}

extern "C" cuzk_err cuzk_gpu_bench_alloc(cuzk_gpu *g, size_t bytes, int reps, double ms[4])
{
    GPU_TRY(cudaSetDevice(g->ordinal), "select device");
    if (reps < 1 || reps > 64)
        return cuzk_fail(CUZK_EINVAL, "alloc bench: reps %d outside 1..64", reps);
    double t[4][64];
    unsigned grid = (unsigned)((bytes / 4096 + 255) / 256);
    cuzk_err rc = CUZK_OK;
    g_keep_bench = 1;
    for (int way = 0; way < 2 && !rc; way++)
        for (int r = -1; r < reps && !rc; r++) {
            void *p = NULL;
            double t0 = cuzk_now();
            rc = way ? gpu_alloc_kept(&p, bytes, "alloc bench")
                     : gpu_alloc(&p, bytes, "alloc bench");
            if (rc)
                break;
            double t1 = cuzk_now();
            k_touch<<<grid ? grid : 1, 256, 0, g->stream>>>((uint8_t *)p, bytes);
            cudaError_t e = cudaStreamSynchronize(g->stream);
            double t2 = cuzk_now();
            if (way)
                gpu_free(p);
            else
                cudaFree(p);
            double t3 = cuzk_now();
            if (e != cudaSuccess)
                rc = gpu_fail(e, "alloc bench: touch");
            else if (r >= 0) {
                t[2 * way][r] = 1e3 * (t1 - t0);
                t[2 * way + 1][r] = 1e3 * (t3 - t2);
            }
        }
    keep_release();
    g_keep_bench = 0;
    if (rc)
        return rc;
    for (int i = 0; i < 4; i++)
        ms[i] = gpu_median(t[i], (size_t)reps);
    return CUZK_OK;
}

/* A block of the caller's own, given back by gpu_arena_put with own = 1. */
static cuzk_err arena_private(size_t bytes, void **p, int *own)
{
    cuzk_err rc = gpu_alloc(p, bytes, "MSM scratch");
    *own = !rc;
    return rc;
}

cuzk_err gpu_arena_get(cuzk_gpu *g, size_t bytes, void **p, int *own)
{
    *p = NULL;
    *own = 0;
    int d = g->ordinal;
    if (d < 0 || d >= GPU_MAX_ARENAS)
        return arena_private(bytes, p, own);
    pthread_mutex_lock(&g_arena_mu);
    if (g_arena[d].busy) { /* another handle's MSM on this device */
        pthread_mutex_unlock(&g_arena_mu);
        return arena_private(bytes, p, own);
    }
    if (g_arena[d].bytes < bytes) {
        cudaFree(g_arena[d].p);
        g_arena[d].p = NULL;
        g_arena[d].bytes = 0;
        keep_make_room(bytes);
        cudaError_t e = cudaMalloc(&g_arena[d].p, bytes);
        if (e == cudaErrorMemoryAllocation) {
            cudaGetLastError();
            if (keep_release())
                e = cudaMalloc(&g_arena[d].p, bytes);
        }
        if (e != cudaSuccess) {
            cudaGetLastError();
            g_arena[d].p = NULL;
            pthread_mutex_unlock(&g_arena_mu);
            return arena_private(bytes, p, own); /* names the shortfall */
        }
        g_arena[d].bytes = bytes;
    }
    g_arena[d].busy = 1;
    *p = g_arena[d].p;
    pthread_mutex_unlock(&g_arena_mu);
    return CUZK_OK;
}

void gpu_arena_put(cuzk_gpu *g, void *p, int own)
{
    if (own) {
        cudaFree(p);
        return;
    }
    if (!p)
        return;
    pthread_mutex_lock(&g_arena_mu);
    g_arena[g->ordinal].busy = 0;
    pthread_mutex_unlock(&g_arena_mu);
}

cuzk_err gpu_alloc(void **p, size_t bytes, const char *what)
{
    *p = NULL;
    keep_make_room(bytes);
    cudaError_t e = cudaMalloc(p, bytes ? bytes : 1);
    /* short still: every kept block, then the idle MSM arena */
    if (e == cudaErrorMemoryAllocation) {
        cudaGetLastError();
        if (keep_release())
            e = cudaMalloc(p, bytes ? bytes : 1);
    }
    if (e == cudaErrorMemoryAllocation) {
        cudaGetLastError();
        if (arena_release_idle())
            e = cudaMalloc(p, bytes ? bytes : 1);
    }
    if (e == cudaSuccess)
        return CUZK_OK;
    cudaGetLastError();
    *p = NULL;
    size_t free_b = 0, total_b = 0;
    cudaMemGetInfo(&free_b, &total_b);
    if (e == cudaErrorMemoryAllocation)
        return cuzk_fail(CUZK_ENOMEM,
                         "GPU out of memory: %s needs %.1f MiB, %.1f MiB free of %.1f MiB", what,
                         bytes / 1048576.0, free_b / 1048576.0, total_b / 1048576.0);
    return cuzk_fail(CUZK_EINTERNAL, "GPU: allocating %s: %s", what, cudaGetErrorString(e));
}

/* Bases kept from earlier proofs give way to this proof's buffers (the
 * MSMs upload them again). Without this an 80 GB GPU that had kept a 32
 * GiB WindowPoSt's five base sets (~60 GB) could not start the next
 * proof. */
cuzk_err gpu_alloc_for(cuzk_gpu *g, void **p, size_t bytes, const char *what, int kept)
{
    for (;;) {
        cuzk_err rc = kept ? gpu_alloc_kept(p, bytes, what) : gpu_alloc(p, bytes, what);
        if (rc != CUZK_ENOMEM)
            return rc;
        /* what is missing, with room for the allocator's rounding; 0 when
         * the free memory would do but in no one piece */
        size_t free_b = 0, total_b = 0, want = bytes + ((size_t)64 << 20);
        if (cudaMemGetInfo(&free_b, &total_b) != cudaSuccess)
            cudaGetLastError();
        size_t shed = gpu_resident_shed(g, want > free_b ? want - free_b : 0);
        if (!shed)
            return rc;
        if (cudaMemGetInfo(&free_b, &total_b) != cudaSuccess)
            cudaGetLastError();
        CUZK_DEBUG("gpu=%d event=bases_given_back mib=%.0f for=\"%s\" needs_mib=%.0f "
                   "free_mib=%.0f",
                   g->ordinal, shed / 1048576.0, what, bytes / 1048576.0, free_b / 1048576.0);
    }
}

static int cmp_double(const void *x, const void *y)
{
    double a = *(const double *)x, b = *(const double *)y;
    return (a > b) - (a < b);
}

double gpu_median(double *t, size_t n)
{
    qsort(t, n, sizeof *t, cmp_double);
    return t[n / 2];
}

extern "C" cuzk_err cuzk_gpu_open(int ordinal, cuzk_gpu **out)
{
    *out = NULL;
    if (ordinal < 0 || ordinal >= cuzk_gpu_count())
        return cuzk_fail(CUZK_EUNSUPPORTED, "GPU %d: no such CUDA device (%d visible)", ordinal,
                         cuzk_gpu_count());
    GPU_TRY(cudaSetDevice(ordinal), "select device");
    cuzk_gpu *g = (cuzk_gpu *)calloc(1, sizeof *g);
    if (!g)
        return cuzk_fail(CUZK_ENOMEM, "GPU handle: out of host memory");
    g->ordinal = ordinal;
    pthread_mutex_init(&g->stage_mu, NULL);
    cudaError_t e = cudaStreamCreateWithFlags(&g->stream, cudaStreamNonBlocking);
    for (int i = 0; e == cudaSuccess && i < 4; i++)
        e = cudaEventCreate(&g->ev[i]);
    if (e != cudaSuccess) {
        cuzk_gpu_close(g);
        return gpu_fail(e, "create stream and events");
    }
    /* Local memory for the deepest MSM kernel, reserved now. The device
     * holds one local-memory block sized for its deepest kernel so far
     * (per-thread frame, with 512 bytes for the calls' own stack, times
     * the threads the device holds: 352 MiB of an H100 80GB for the G2
     * bucket reduction's 1.8 KB, measured); a launch that needs a larger one
     * grows it first, and on a full device (a proof's MSM scratch, the G2
     * MSM that comes last) that growth fails as "out of memory" at the
     * launch. Set as the stack limit, the block is taken
     * while the device has room. Not reserved when even that fails (the
     * device full at open): kernels then grow it as before. */
    size_t need = gpu_msm_stack_need() + 512, cur = 0;
    if (cudaDeviceGetLimit(&cur, cudaLimitStackSize) == cudaSuccess && need > cur &&
        cudaDeviceSetLimit(cudaLimitStackSize, need) != cudaSuccess)
        cudaGetLastError();
    *out = g;
    return CUZK_OK;
}

extern "C" void cuzk_gpu_trim(cuzk_gpu *g)
{
    if (cudaSetDevice(g->ordinal) != cudaSuccess) {
        cudaGetLastError();
        return;
    }
    arena_release_idle();
    keep_release();
}

extern "C" void cuzk_gpu_close(cuzk_gpu *g)
{
    if (!g)
        return;
    cudaSetDevice(g->ordinal);
    gpu_prefetch_drop(g);
    if (g->pf.done)
        cudaEventDestroy(g->pf.done);
    cuzk_gpu_msm_forget(g); /* joins a base set's upload ahead */
    if (g->ahead.done)
        cudaEventDestroy(g->ahead.done);
    cuzk_gpu_scalars_clear(g);
    gpu_drop_h(g);
    arena_release_idle();
    keep_release();
    gpu_pce_forget(g);
    gpu_ntt_free(g);
    for (int i = 0; i < 2; i++) {
        gpu_pinned_free(g->stage[i]);
        if (g->stage_ev[i])
            cudaEventDestroy(g->stage_ev[i]);
    }
    for (int i = 0; i < 4; i++)
        if (g->ev[i])
            cudaEventDestroy(g->ev[i]);
    if (g->stream)
        cudaStreamDestroy(g->stream);
    if (g->cstream)
        cudaStreamDestroy(g->cstream);
    if (g->mstream)
        cudaStreamDestroy(g->mstream);
    pthread_mutex_destroy(&g->stage_mu);
    free(g);
}

extern "C" cuzk_err cuzk_gpu_bind(cuzk_gpu *g)
{
    GPU_TRY(cudaSetDevice(g->ordinal), "select device");
    return CUZK_OK;
}

extern "C" cuzk_err cuzk_gpu_device_mem(int ordinal, size_t *free_bytes, size_t *total_bytes)
{
    *free_bytes = *total_bytes = 0;
    if (ordinal < 0 || ordinal >= cuzk_gpu_count())
        return cuzk_fail(CUZK_EINVAL, "GPU %d: no such CUDA device", ordinal);
    GPU_TRY(cudaSetDevice(ordinal), "select device");
    GPU_TRY(cudaMemGetInfo(free_bytes, total_bytes), "device memory");
    /* an idle MSM arena and kept blocks are given back to any allocation
     * that needs them */
    if (ordinal < GPU_MAX_ARENAS) {
        pthread_mutex_lock(&g_arena_mu);
        if (!g_arena[ordinal].busy)
            *free_bytes += g_arena[ordinal].bytes;
        pthread_mutex_unlock(&g_arena_mu);
    }
    *free_bytes += gpu_kept_bytes(ordinal);
    return CUZK_OK;
}

extern "C" cuzk_err cuzk_gpu_scalars_set(cuzk_gpu *g, const cuzk_fr *w, size_t n)
{
    cuzk_gpu_scalars_clear(g);
    if (!w || !n)
        return CUZK_OK;
    GPU_TRY(cudaSetDevice(g->ordinal), "select device");
    void *d;
    CUZK_TRY(gpu_alloc_for(g, &d, n * sizeof(cuzk_fr), "witness scalars", 0));
    gpu_times_begin(g);
    cuzk_err rc = gpu_copy_h2d(g, d, w, n * sizeof(cuzk_fr));
    gpu_times_mark(g, 1);
    if (!rc)
        rc = gpu_times_end(g); /* waits for the copy; kernels and d2h: 0 */
    if (rc) {
        cudaStreamSynchronize(g->stream);
        cudaFree(d);
        return rc;
    }
    gpu_set_witness(g, w, n, d);
    return CUZK_OK;
}

void gpu_set_witness(cuzk_gpu *g, const void *w, size_t n, void *dev)
{
    cuzk_gpu_scalars_clear(g);
    g->wit_host = w;
    g->wit_n = n;
    g->wit_dev = dev;
}

extern "C" void cuzk_gpu_scalars_clear(cuzk_gpu *g)
{
    if (g->wit_dev) {
        cudaSetDevice(g->ordinal);
        gpu_free(g->wit_dev);
    }
    g->wit_host = NULL;
    g->wit_n = 0;
    g->wit_dev = NULL;
}

const void *gpu_scalars_lookup(const cuzk_gpu *g, const void *k, size_t n)
{
    const cuzk_fr *lo = (const cuzk_fr *)g->wit_host, *p = (const cuzk_fr *)k;
    if (!g->wit_dev || p < lo || p > lo + g->wit_n || (size_t)(lo + g->wit_n - p) < n)
        return NULL;
    return (const cuzk_fr *)g->wit_dev + (p - lo);
}

extern "C" int cuzk_gpu_ordinal(const cuzk_gpu *g)
{
    return g->ordinal;
}

extern "C" cuzk_err cuzk_gpu_mem_info(cuzk_gpu *g, cuzk_gpu_mem *out)
{
    memset(out, 0, sizeof *out);
    CUZK_TRY(cuzk_gpu_device_mem(g->ordinal, &out->free_bytes, &out->total_bytes));
    out->kept_bytes = gpu_kept_bytes(g->ordinal);
    out->arena_bytes = arena_idle(g->ordinal);
    for (int i = 0; i < GPU_MAX_RESIDENT; i++)
        if (g->res[i].dev)
            out->resident_bytes += g->res[i].n * g->res[i].elem;
    out->resident_bytes += gpu_pce_bytes(g);
    for (int i = 0; i < 2; i++)
        if (g->stage[i])
            out->pinned_host_bytes += STAGE_BYTES;
    return CUZK_OK;
}

void gpu_times_begin(cuzk_gpu *g)
{
    cudaEventRecord(g->ev[0], g->stream);
    cudaEventRecord(g->ev[1], g->stream);
    cudaEventRecord(g->ev[2], g->stream);
}

void gpu_times_mark(cuzk_gpu *g, int phase)
{
    cudaEventRecord(g->ev[phase], g->stream);
    if (phase == 1)
        cudaEventRecord(g->ev[2], g->stream);
}

cuzk_err gpu_times_end(cuzk_gpu *g)
{
    cudaEventRecord(g->ev[3], g->stream);
    GPU_TRY(cudaEventSynchronize(g->ev[3]), "device work");
    GPU_TRY(cudaGetLastError(), "kernel launch");
    float a = 0, b = 0, c = 0;
    cudaEventElapsedTime(&a, g->ev[0], g->ev[1]);
    cudaEventElapsedTime(&b, g->ev[1], g->ev[2]);
    cudaEventElapsedTime(&c, g->ev[2], g->ev[3]);
    g->last.h2d_ms = a;
    g->last.kernel_ms = b;
    g->last.d2h_ms = c;
    return CUZK_OK;
}

extern "C" void cuzk_gpu_last_times(const cuzk_gpu *g, cuzk_gpu_times *t)
{
    *t = g->last;
}

/* ---- staged copies ------------------------------------------------------- */

/* The host side of staged copies runs on threads of its own, not on the
 * compute pool: while prove_batch runs the SpMV of the next proof on the
 * pool, a copy queued behind it would leave the device idle for the whole
 * SpMV. COPY_THREADS threads (made once) each copy a share of a chunk. */
#define COPY_THREADS 8

static struct {
    pthread_once_t once;
    pthread_mutex_t call; /* one copy at a time */
    pthread_mutex_t mu;
    pthread_cond_t go, done;
    unsigned char *dst;
    const unsigned char *src;
    size_t bytes;
    uint64_t gen;     /* bumped per copy */
    unsigned pending; /* helper threads still copying */
    unsigned threads; /* helper threads running (0: copy inline) */
} cp = {PTHREAD_ONCE_INIT,
        PTHREAD_MUTEX_INITIALIZER,
        PTHREAD_MUTEX_INITIALIZER,
        PTHREAD_COND_INITIALIZER,
        PTHREAD_COND_INITIALIZER,
        NULL,
        NULL,
        0,
        0,
        0,
        0};

/* Share i of COPY_THREADS shares of the current copy (64-byte aligned). */
static void copy_share(unsigned i)
{
    size_t per = ((cp.bytes + COPY_THREADS - 1) / COPY_THREADS + 63) & ~(size_t)63;
    size_t lo = per * i < cp.bytes ? per * i : cp.bytes;
    size_t hi = lo + per < cp.bytes ? lo + per : cp.bytes;
    memcpy(cp.dst + lo, cp.src + lo, hi - lo);
}

static void *copy_main(void *arg)
{
    unsigned i = (unsigned)(uintptr_t)arg;
    uint64_t seen = 0;
    pthread_mutex_lock(&cp.mu);
    for (;;) {
        while (cp.gen == seen)
            pthread_cond_wait(&cp.go, &cp.mu);
        seen = cp.gen;
        pthread_mutex_unlock(&cp.mu);
        copy_share(i);
        pthread_mutex_lock(&cp.mu);
        if (--cp.pending == 0)
            pthread_cond_signal(&cp.done);
    }
    return NULL;
}

static void copy_start(void)
{
    for (unsigned i = 1; i < COPY_THREADS; i++) {
        pthread_t t;
        if (pthread_create(&t, NULL, copy_main, (void *)(uintptr_t)i) != 0)
            break; /* fewer helpers: the caller copies their shares */
        pthread_detach(t);
        cp.threads++;
    }
}

void gpu_par_memcpy(void *dst, const void *src, size_t bytes)
{
    if (bytes < ((size_t)4 << 20)) {
        memcpy(dst, src, bytes);
        return;
    }
    pthread_once(&cp.once, copy_start);
    pthread_mutex_lock(&cp.call);
    pthread_mutex_lock(&cp.mu);
    cp.dst = (unsigned char *)dst;
    cp.src = (const unsigned char *)src;
    cp.bytes = bytes;
    cp.pending = cp.threads;
    cp.gen++;
    pthread_cond_broadcast(&cp.go);
    pthread_mutex_unlock(&cp.mu);
    copy_share(0);
    for (unsigned i = cp.threads + 1; i < COPY_THREADS; i++)
        copy_share(i);
    pthread_mutex_lock(&cp.mu);
    while (cp.pending)
        pthread_cond_wait(&cp.done, &cp.mu);
    pthread_mutex_unlock(&cp.mu);
    pthread_mutex_unlock(&cp.call);
}

/* ---- pinned host memory, counted ------------------------------------------
 * Each block carries its size in a 64-byte header, so the free side needs
 * no bookkeeping of its own. */
#define PIN_HDR 64
static size_t pinned_total;

cuzk_err gpu_pinned_alloc(void **p, size_t bytes, const char *what)
{
    *p = NULL;
    void *raw = NULL;
    if (cudaHostAlloc(&raw, bytes + PIN_HDR, cudaHostAllocPortable) != cudaSuccess) {
        cudaGetLastError();
        return cuzk_fail(CUZK_ENOMEM, "cannot pin %.1f MiB of host memory for %s",
                         bytes / 1048576.0, what);
    }
    *(size_t *)raw = bytes;
    __atomic_add_fetch(&pinned_total, bytes, __ATOMIC_RELAXED);
    *p = (unsigned char *)raw + PIN_HDR;
    return CUZK_OK;
}

void gpu_pinned_free(void *p)
{
    if (!p)
        return;
    unsigned char *raw = (unsigned char *)p - PIN_HDR;
    __atomic_sub_fetch(&pinned_total, *(size_t *)raw, __ATOMIC_RELAXED);
    cudaFreeHost(raw);
}

extern "C" cuzk_err cuzk_gpu_host_alloc(void **p, size_t bytes)
{
    return gpu_pinned_alloc(p, bytes, "a host buffer");
}

extern "C" void cuzk_gpu_host_free(void *p)
{
    gpu_pinned_free(p);
}

extern "C" size_t cuzk_gpu_pinned_bytes(void)
{
    return __atomic_load_n(&pinned_total, __ATOMIC_RELAXED);
}

/* 1 when the staging buffers exist (made on first use), 0 to fall back. */
static int stage_ready(cuzk_gpu *g)
{
    if (!g->stage_tried) {
        g->stage_tried = 1;
        for (int i = 0; i < 2; i++)
            if (gpu_pinned_alloc(&g->stage[i], STAGE_BYTES, "staging") != CUZK_OK ||
                cudaEventCreateWithFlags(&g->stage_ev[i], cudaEventDisableTiming) != cudaSuccess) {
                cudaGetLastError();
                for (int j = 0; j <= i; j++) {
                    gpu_pinned_free(g->stage[j]);
                    g->stage[j] = NULL;
                }
                return 0;
            }
    }
    return g->stage[0] != NULL;
}

/* A stream made on first use (*tried set then), or NULL. */
static cudaStream_t lazy_stream(cudaStream_t *s, int *tried)
{
    if (!*tried) {
        *tried = 1;
        if (cudaStreamCreateWithFlags(s, cudaStreamNonBlocking) != cudaSuccess) {
            cudaGetLastError();
            *s = NULL;
        }
    }
    return *s;
}

cudaStream_t gpu_copy_stream(cuzk_gpu *g)
{
    cudaStream_t s = lazy_stream(&g->cstream, &g->cstream_tried);
    return s ? s : g->stream;
}

cudaStream_t gpu_msm_stream(cuzk_gpu *g)
{
    return lazy_stream(&g->mstream, &g->mstream_tried);
}

void gpu_keep_h(cuzk_gpu *g, const void *host, void *dev, size_t n, int only)
{
    gpu_drop_h(g);
    g->hk_host = host;
    g->hk_n = n;
    g->hk_dev = dev;
    g->hk_only = only;
}

void gpu_drop_h(cuzk_gpu *g)
{
    if (g->hk_dev)
        gpu_free(g->hk_dev);
    g->hk_host = NULL;
    g->hk_n = 0;
    g->hk_dev = NULL;
    g->hk_only = 0;
}

extern "C" cuzk_err cuzk_gpu_msm_g1_h(cuzk_gpu *g, blst_p1 *out, const blst_p1_affine *bases,
                                      size_t n_bases, const cuzk_fr *h, size_t n)
{
    GPU_TRY(cudaSetDevice(g->ordinal), "select device");
    if (!g->hk_dev || g->hk_host != h || n > g->hk_n) {
        /* after compute_h_resident the host array never received h: an MSM
         * over it would silently use whatever it held */
        int only = g->hk_dev && g->hk_only;
        gpu_drop_h(g);
        if (only)
            return cuzk_fail(CUZK_EINVAL, "H MSM: the h of the last compute_h_resident is on "
                                          "the device only and belongs to another array or size");
        return cuzk_gpu_msm_g1(g, out, bases, n_bases, h, NULL, n, NULL);
    }
    /* Lend the kept h to the MSM as its scalar window, then free it. */
    const void *wh = g->wit_host;
    size_t wn = g->wit_n;
    void *wd = g->wit_dev;
    g->wit_host = g->hk_host;
    g->wit_n = g->hk_n;
    g->wit_dev = g->hk_dev;
    cuzk_err rc = cuzk_gpu_msm_g1(g, out, bases, n_bases, h, NULL, n, NULL);
    g->wit_host = wh;
    g->wit_n = wn;
    g->wit_dev = wd;
    gpu_drop_h(g);
    return rc;
}

cuzk_err gpu_copy_h2d(cuzk_gpu *g, void *dev, const void *host, size_t bytes)
{
    return gpu_copy_h2d_on(g, g->stream, dev, host, bytes);
}

/* Whether host memory is page-locked (cudaHostAlloc'd or registered): then
 * copies go straight to and from it, without the staging buffers. */
static int host_pinned(const void *host)
{
    cudaPointerAttributes at;
    if (cudaPointerGetAttributes(&at, host) != cudaSuccess) {
        cudaGetLastError();
        return 0;
    }
    return at.type == cudaMemoryTypeHost;
}

/* The copy through the two staging buffers, stage_mu held. */
static cuzk_err staged_h2d(cuzk_gpu *g, cudaStream_t st, void *dev, const void *host, size_t bytes)
{
    for (size_t off = 0, i = 0; off < bytes; i++) {
        size_t len = bytes - off < STAGE_BYTES ? bytes - off : STAGE_BYTES;
        int b = (int)(i & 1);
        GPU_TRY(cudaEventSynchronize(g->stage_ev[b]), "copy to device");
        gpu_par_memcpy(g->stage[b], (const unsigned char *)host + off, len);
        GPU_TRY(cudaMemcpyAsync((unsigned char *)dev + off, g->stage[b], len,
                                cudaMemcpyHostToDevice, st),
                "copy to device");
        GPU_TRY(cudaEventRecord(g->stage_ev[b], st), "copy to device");
        off += len;
    }
    return CUZK_OK;
}

cuzk_err gpu_copy_h2d_on(cuzk_gpu *g, cudaStream_t st, void *dev, const void *host, size_t bytes)
{
    if (bytes < STAGE_BYTES / 4 || host_pinned(host)) {
        GPU_TRY(cudaMemcpyAsync(dev, host, bytes, cudaMemcpyHostToDevice, st), "copy to device");
        return CUZK_OK;
    }
    pthread_mutex_lock(&g->stage_mu);
    cuzk_err rc = CUZK_OK;
    if (stage_ready(g)) {
        rc = staged_h2d(g, st, dev, host, bytes);
    } else {
        cudaError_t e = cudaMemcpyAsync(dev, host, bytes, cudaMemcpyHostToDevice, st);
        if (e != cudaSuccess)
            rc = gpu_fail(e, "copy to device");
    }
    pthread_mutex_unlock(&g->stage_mu);
    return rc;
}

static cuzk_err staged_d2h(cuzk_gpu *g, void *host, const void *dev, size_t bytes);

cuzk_err gpu_copy_d2h(cuzk_gpu *g, void *host, const void *dev, size_t bytes)
{
    if (bytes >= STAGE_BYTES / 4 && !host_pinned(host)) {
        pthread_mutex_lock(&g->stage_mu);
        if (stage_ready(g)) {
            cuzk_err rc = staged_d2h(g, host, dev, bytes);
            pthread_mutex_unlock(&g->stage_mu);
            return rc;
        }
        pthread_mutex_unlock(&g->stage_mu);
    }
    GPU_TRY(cudaMemcpyAsync(host, dev, bytes, cudaMemcpyDeviceToHost, g->stream), "copy to host");
    GPU_TRY(cudaStreamSynchronize(g->stream), "copy to host");
    return CUZK_OK;
}

/* The copy through the two staging buffers, stage_mu held. */
static cuzk_err staged_d2h(cuzk_gpu *g, void *host, const void *dev, size_t bytes)
{
    size_t prev_off = 0, prev_len = 0;
    for (size_t off = 0, i = 0; off < bytes || prev_len; i++) {
        size_t len = bytes - off < STAGE_BYTES ? bytes - off : STAGE_BYTES;
        int b = (int)(i & 1);
        if (len) {
            GPU_TRY(cudaMemcpyAsync(g->stage[b], (const unsigned char *)dev + off, len,
                                    cudaMemcpyDeviceToHost, g->stream),
                    "copy to host");
            GPU_TRY(cudaEventRecord(g->stage_ev[b], g->stream), "copy to host");
        }
        if (prev_len) { /* the previous chunk, in the other buffer */
            GPU_TRY(cudaEventSynchronize(g->stage_ev[b ^ 1]), "copy to host");
            gpu_par_memcpy((unsigned char *)host + prev_off, g->stage[b ^ 1], prev_len);
        }
        prev_off = off;
        prev_len = len;
        off += len;
    }
    return CUZK_OK;
}
