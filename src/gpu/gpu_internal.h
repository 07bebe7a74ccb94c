/* What the .cu files of src/gpu share: the cuzk_gpu handle and the helpers
 * that turn CUDA errors into cuzk_err. Private to src/gpu. */
#ifndef CUZK_GPU_INTERNAL_H
#define CUZK_GPU_INTERNAL_H

#include <cuda_runtime.h>
#include <pthread.h>
#include <stdlib.h>

/* The host headers are C: give their declarations C linkage here. */
extern "C" {
#include "cuzk/curve.h"
#include "cuzk/fr.h"
#include "cuzk/gpu.h"
#include "cuzk/msm.h"
#include "cuzk/pce.h"
#include "cuzk/wpack.h"
}

/* A tuning setting from the environment: NAME as a decimal in [lo, hi],
 * else dflt (unset, empty or out of range). */
static inline unsigned env_uint(const char *name, unsigned dflt, unsigned lo, unsigned hi)
{
    const char *s = getenv(name);
    if (!s || !*s)
        return dflt;
    unsigned long v = strtoul(s, NULL, 10);
    return v >= lo && v <= hi ? (unsigned)v : dflt;
}

/* One resident set of MSM bases (see msm.cu). A circuit has five (h, l,
 * a, b_g1, b_g2): the slots hold several circuits at once (a PoRep and the
 * PoSt circuits proved between its partitions), so that alternating
 * circuits does not evict and upload tens of GB per partition; device
 * memory, not the slot count, decides what stays. */
#define GPU_MAX_RESIDENT 32
#define GPU_SAMPLE 8
typedef struct {
    const void *host; /* key: host address, count, element size and a sample */
    size_t n, elem;
    unsigned char sample[GPU_SAMPLE][192];
    void *dev;
    uint64_t last_use;
    int pinned; /* kept for good (cuzk_gpu_bases_pin): never evicted, matched without sample */
    int busy;   /* an MSM is using it: gpu_resident_shed leaves it */
    int ahead;  /* being uploaded ahead of its MSM (gpu_ahead): left alone until finished */
} gpu_resident;

/* A base set uploaded ahead of its MSM (msm.cu, cuzk_gpu_bases_ahead): on
 * a GPU too small to keep every set of a circuit beside a proof's buffers
 * (80 GB), the set given back last proof goes up on the copy stream from a
 * thread of its own while the MSMs before it run, instead of while the
 * device waits. One at a time; the MSM that needs it waits for the rest. */
typedef struct {
    pthread_t thread;
    cudaEvent_t done;
    int live;     /* thread started and not joined */
    int slot;     /* its gpu_resident */
    int ok;       /* every copy issued and finished */
    int finished; /* set by the thread as it ends */
    double s;     /* the thread's time from start to the copies' end */
} gpu_ahead;

/* A constraint system kept on the device for the SpMV (spmv.cu): its
 * whole PCE image, found again by checksum and size. */
#define GPU_MAX_PCE 4
typedef struct {
    uint64_t checksum;
    size_t bytes;
    void *dev;
    uint64_t last_use;
} gpu_pce_slot;

/* Density bitmaps kept on the device (msm.cu): a circuit's l, a and b
 * bitmaps are the same for every proof of it, so each is uploaded once.
 * Matched by content (the host copy), never by address alone. */
#define GPU_MAX_DENSITY 8
typedef struct {
    uint64_t *host; /* a copy of the bitmap */
    size_t n;       /* its bits */
    uint64_t count; /* of them set */
    void *dev;
    uint64_t last_use;
} gpu_density;

/* The packed witness of the next proof, copied to the device ahead of it
 * (spmv.cu): a compute_h_pce told its successor's witness starts the copy
 * on the copy stream from a thread of its own, so the copy runs under its
 * own kernels and MSMs; the next compute_h_pce takes the copy when its
 * witness is that one, and drops it otherwise. */
typedef struct {
    const cuzk_wpack *wp; /* NULL: none; the caller keeps it until taken or dropped */
    void *dev;            /* meta (rounded up to 64 bytes), then dense */
    cudaEvent_t done;     /* recorded on the copy stream after the copy */
    pthread_t thread;
    int live; /* thread started and not joined */
    int ok;   /* the thread issued every copy and recorded done */
} gpu_prefetch;

struct cuzk_gpu {
    int ordinal;
    cudaStream_t stream;
    cudaEvent_t ev[4]; /* h2d start, kernels start, d2h start, end */
    cuzk_gpu_times last;
    /* NTT tables for size 2^ntt_log (0: none yet), built by ntt.cu. */
    unsigned ntt_log, pow_bits;
    void *tw;             /* 2^ntt_log twiddles (ntt.cu's ntt_tw), then 2^ntt_log Fr of scratch */
    void *pow_g, *pow_gi; /* powers of g and 1/g: lo table then hi table */
    /* Pinned staging buffers for host<->device copies (device.cu), made
     * on first use; NULL when pinned memory was refused. */
    void *stage[2];
    cudaEvent_t stage_ev[2];
    int stage_tried;
    /* Held by a staged copy from start to end: a prefetch's thread and the
     * caller's thread may both copy. */
    pthread_mutex_t stage_mu;
    /* MSM bases kept on the device, by msm.cu. */
    gpu_resident res[GPU_MAX_RESIDENT];
    gpu_density dens[GPU_MAX_DENSITY];
    uint64_t use_clock;
    /* use_clock when the last two proofs began (gpu_proof_begin): base
     * sets used since proof_mark[0] belong to the circuit being proved */
    uint64_t proof_mark[2];
    /* The witness of the proof in progress on the device (device.cu,
     * cuzk_gpu_scalars_set): an MSM whose scalars lie inside
     * [wit_host, wit_host + wit_n) reads them here instead of uploading. */
    const void *wit_host;
    size_t wit_n;
    void *wit_dev;
    /* The last compute_h's result, left on the device for the H MSM that
     * follows (cuzk_gpu_msm_g1_h); freed by it, the next compute_h or close. */
    const void *hk_host;
    size_t hk_n;
    void *hk_dev;
    int hk_only; /* the host array was not written (compute_h_resident) */
    /* A second stream for uploads that overlap kernels (made on first use;
     * NULL: copies go on `stream`). */
    cudaStream_t cstream;
    int cstream_tried;
    /* A second compute stream for the MSM's window chunks (msm.cu; made on
     * first use, NULL when it could not be). */
    cudaStream_t mstream;
    int mstream_tried;
    /* Constraint systems for the device SpMV (spmv.cu). */
    gpu_pce_slot pce[GPU_MAX_PCE];
    gpu_prefetch pf;
    gpu_ahead ahead;
};

/* The median of n timings (n >= 1), sorting t in place: the benchmarks'
 * figure of their repetitions. */
double gpu_median(double *t, size_t n);

/* gpu_copy_h2d on another stream of the handle (staging shared with it). */
cuzk_err gpu_copy_h2d_on(cuzk_gpu *g, cudaStream_t s, void *dev, const void *host, size_t bytes);
/* The copy stream (see cstream), or g->stream when none could be made. */
cudaStream_t gpu_copy_stream(cuzk_gpu *g);
/* The MSM's second compute stream (see mstream), or NULL. */
cudaStream_t gpu_msm_stream(cuzk_gpu *g);
/* Keep dev (n scalars, the h computed for host array host) for
 * cuzk_gpu_msm_g1_h; takes ownership of dev and frees what was kept. only:
 * h was not written to host, so only the device copy holds it. */
void gpu_keep_h(cuzk_gpu *g, const void *host, void *dev, size_t n, int only);
void gpu_drop_h(cuzk_gpu *g);
/* Install dev (n scalars uploaded from host w) as the witness window, as
 * cuzk_gpu_scalars_set would; takes ownership of dev. */
void gpu_set_witness(cuzk_gpu *g, const void *w, size_t n, void *dev);

/* Pinned host memory, counted for cuzk_gpu_pinned_bytes(): *p = NULL and
 * ENOMEM (naming `what`) when the driver refuses. Free with gpu_pinned_free
 * (NULL is a no-op). */
cuzk_err gpu_pinned_alloc(void **p, size_t bytes, const char *what);
void gpu_pinned_free(void *p);

/* Device copy of the n scalars at host k when they lie in the witness set
 * by cuzk_gpu_scalars_set, else NULL. */
const void *gpu_scalars_lookup(const cuzk_gpu *g, const void *k, size_t n);

/* A CUDA error as a cuzk_err: ENOMEM for an allocation failure, EINTERNAL
 * for anything else, with the CUDA message. */
cuzk_err gpu_fail(cudaError_t e, const char *what);
#define GPU_TRY(call, what)                                                                        \
    do {                                                                                           \
        cudaError_t e_ = (call);                                                                   \
        if (e_ != cudaSuccess)                                                                     \
            return gpu_fail(e_, what);                                                             \
    } while (0)
/* cudaMalloc with a message that says what did not fit and what was free. */
cuzk_err gpu_alloc(void **p, size_t bytes, const char *what);
/* gpu_alloc for a block freed and asked for again every proof: taken from
 * the blocks gpu_free kept when one fits (device.cu); such a block must go
 * back through gpu_free. gpu_free frees any other pointer (cudaFree). */
cuzk_err gpu_alloc_kept(void **p, size_t bytes, const char *what);
/* The same without a message, and giving back kept blocks, not the MSM
 * arena, when short (best-effort copies ahead). */
cuzk_err gpu_alloc_kept_try(void **p, size_t bytes);
void gpu_free(void *p);
/* A proof's buffer on handle g: gpu_alloc (kept: gpu_alloc_kept), and when
 * the device is still short, g's resident base sets that are neither
 * pinned nor in use by an MSM go back, the least recently used first,
 * until the block fits or none is left (device.cu). */
cuzk_err gpu_alloc_for(cuzk_gpu *g, void **p, size_t bytes, const char *what, int kept);
/* Frees one of g's resident base sets that is neither pinned nor in use,
 * the one needed last (msm.cu); returns its bytes, 0 when there is none. */
size_t gpu_resident_shed(cuzk_gpu *g, size_t shortfall);
/* A proof begins on g (its H): marks the resident sets' ages (msm.cu). */
void gpu_proof_begin(cuzk_gpu *g);
size_t gpu_kept_bytes(int dev);
/* The largest per-thread local memory of the MSM kernels (msm.cu), which
 * cuzk_gpu_open reserves as the device's stack size. */
size_t gpu_msm_stack_need(void);
/* The device's MSM scratch arena (device.cu): at least `bytes`, kept for the
 * next MSM; *own set when a private block was allocated instead (the arena
 * busy with another handle, or too large to keep): give it back with
 * gpu_arena_put either way. Idle arena bytes count as free memory. */
cuzk_err gpu_arena_get(cuzk_gpu *g, size_t bytes, void **p, int *own);
void gpu_arena_put(cuzk_gpu *g, void *p, int own);
size_t gpu_arena_idle_bytes(const cuzk_gpu *g);

void gpu_ntt_free(cuzk_gpu *g);

/* Blocks of 256 threads for a grid-stride loop over n elements (at most
 * 65536: the loops stride). */
static inline unsigned gpu_grid_for(size_t n)
{
    size_t b = (n + 255) / 256;
    return (unsigned)(b > 65536 ? 65536 : b ? b : 1);
}

/* The SpMV step of cuzk_gpu_compute_h_pce, enqueued on g->stream: the PCE
 * made resident (uploaded on first use), the packed witness uploaded and
 * expanded into dw (n_inputs + n_aux elements), a, b, c = A.w, B.w, C.w
 * into v[0..2] (2^log_domain elements each, zero beyond the rows), and
 * *bad (device memory, set to ~0 first) lowered to the first row where
 * a*b != c. Returns once the work is enqueued, with *packed the device
 * copy of the packed witness, to cudaFree once the stream has run (NULL on
 * error). pre: wp's copy from gpu_prefetch_take, or NULL to upload it here;
 * the call owns it (freed on error). next (NULL: none), the packed witness
 * of the caller's next proof, starts a prefetch once wp is up. */
cuzk_err gpu_pce_abc(cuzk_gpu *g, const cuzk_pce *pce, const cuzk_wpack *wp, void *pre,
                     const cuzk_wpack *next, void *dw, void *v[3], unsigned long long *bad,
                     void **packed);
/* The prefetch settled: wp's device copy, g->stream made to wait for it,
 * when the prefetch holds wp's; NULL otherwise (no prefetch, another
 * witness's, or its copy failed), the prefetch dropped either way. */
void *gpu_prefetch_take(cuzk_gpu *g, const cuzk_wpack *wp);
/* Wait for the prefetch's thread and copy, and free its device copy. */
void gpu_prefetch_drop(cuzk_gpu *g);
/* pce's image made resident (uploaded unless it is already): done first,
 * before a proof's own buffers, so that those never crowd it out. */
cuzk_err gpu_pce_resident(cuzk_gpu *g, const cuzk_pce *pce);
/* Drop every PCE kept on the device; their bytes (for cuzk_gpu_mem_info). */
void gpu_pce_forget(cuzk_gpu *g);
size_t gpu_pce_bytes(const cuzk_gpu *g);

/* Copies between pageable host memory and the device through the pinned
 * staging buffers (enqueued on g->stream; they return once the host side is
 * done: h2d when the last chunk is queued, d2h when all data has landed). */
cuzk_err gpu_copy_h2d(cuzk_gpu *g, void *dev, const void *host, size_t bytes);
cuzk_err gpu_copy_d2h(cuzk_gpu *g, void *host, const void *dev, size_t bytes);
/* memcpy on the thread pool (pinned staging is filled and drained at the
 * host's memory bandwidth, not one core's). */
void gpu_par_memcpy(void *dst, const void *src, size_t bytes);
/* n random Fr elements (below 2^253, valid Montgomery forms) at device a. */
void gpu_rand_fr(cuzk_gpu *g, void *a, size_t n, uint64_t seed);

/* Events around the phases of one operation; gpu_times_end fills g->last. */
void gpu_times_begin(cuzk_gpu *g);
void gpu_times_mark(cuzk_gpu *g, int phase); /* 1: kernels start, 2: d2h start */
cuzk_err gpu_times_end(cuzk_gpu *g);

#endif
